// Texture and surface objects for the PTX front end's corpus.
extern "C" __global__ void kernel_tex(float* out, cudaTextureObject_t tex, cudaSurfaceObject_t surf, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float4 t = tex2D<float4>(tex, x + 0.5f, y + 0.5f);
    float v = tex1Dfetch<float>(tex, x);
    surf2Dwrite(make_float4(t.x, t.y, v, 1.0f), surf, x * 16, y);
    float4 r;
    surf2Dread(&r, surf, x * 16, y);
    out[y * w + x] = r.x + r.w;
}
