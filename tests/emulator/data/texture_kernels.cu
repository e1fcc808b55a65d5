// Kernels for the texture and surface tests (test_texture_kernels.cpp and the driver's
// test_texture_driver.cpp). texture_kernels_sm75.ptx is this file compiled with
// nvcc -ptx -arch=sm_75.
#include <cuda_runtime.h>

extern "C" __global__ void tex2d_f4(cudaTextureObject_t t, float4* out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h) out[y * w + x] = tex2D<float4>(t, x + 0.5f, y + 0.5f);
}

extern "C" __global__ void tex2d_at(cudaTextureObject_t t, float* out, const float* xy, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float>(t, xy[2 * i], xy[2 * i + 1]);
}

extern "C" __global__ void tex2d_int4(cudaTextureObject_t t, int4* out, const float* xy, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<int4>(t, xy[2 * i], xy[2 * i + 1]);
}

extern "C" __global__ void tex1d_at(cudaTextureObject_t t, float* out, const float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1D<float>(t, x[i]);
}

extern "C" __global__ void tex3d_at(cudaTextureObject_t t, float* out, const float* xyz, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex3D<float>(t, xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]);
}

// Reads elements i - 2 for i in [0, n): the first two and any past the end are out of range.
extern "C" __global__ void fetch_int(cudaTextureObject_t t, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<int>(t, i - 2);
}

extern "C" __global__ void fetch_float(cudaTextureObject_t t, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float>(t, i);
}

extern "C" __global__ void gather_g(cudaTextureObject_t t, float4* out, const float* xy, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2Dgather<float4>(t, xy[2 * i], xy[2 * i + 1], 1);
}

extern "C" __global__ void surf_scale(cudaSurfaceObject_t in, cudaSurfaceObject_t out, int w,
                                      int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h) {
        float v = surf2Dread<float>(in, x * 4, y);
        surf2Dwrite(v * 2.0f, out, x * 4, y);
    }
}

// Reverses the channels of each uchar4 texel; threads past w read zeros (cudaBoundaryModeZero)
// and write to the last texel (cudaBoundaryModeClamp), lanes in order, so the last lane wins.
extern "C" __global__ void surf_swizzle(cudaSurfaceObject_t in, cudaSurfaceObject_t out, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < n) {
        uchar4 v = surf1Dread<uchar4>(in, x * 4, cudaBoundaryModeZero);
        surf1Dwrite(make_uchar4(v.w, v.z, v.y, v.x), out, x * 4, cudaBoundaryModeClamp);
    }
}

extern "C" __global__ void surf_trap(cudaSurfaceObject_t s, int x) {
    surf1Dwrite(1.0f, s, x * 4);
}
