// A runtime-API program using texture and surface objects the way Rodinia-style codes do: a
// texture on a cudaMallocArray array filled by cudaMemcpy2DToArray (linear filtering), a
// tex1Dfetch texture on linear memory, and a surface written by a kernel and read back with
// cudaMemcpy2DFromArray. Prints "texture_app: OK".
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>

__global__ void sample(cudaTextureObject_t t, float* out, int w, int h) {
    int x = threadIdx.x, y = blockIdx.x;
    if (x < w && y < h) out[y * w + x] = tex2D<float>(t, x + 1.0f, y + 0.5f);
}

__global__ void fetch(cudaTextureObject_t t, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<unsigned>(t, i) * 3u;
}

__global__ void fill(cudaSurfaceObject_t s, int w, int h) {
    int x = threadIdx.x, y = blockIdx.x;
    if (x < w && y < h) surf2Dwrite(make_float2(float(x), float(y)), s, x * 8, y);
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e = (call);                                                                    \
        if (e != cudaSuccess) {                                                                    \
            std::printf("texture_app: %s FAILED: %s\n", #call, cudaGetErrorString(e));             \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

int main() {
    const int w = 8, h = 4;
    float host[h][w];
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            host[y][x] = float(x * x + 10 * y);
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t array;
    CHECK(cudaMallocArray(&array, &fd, w, h));
    CHECK(cudaMemcpy2DToArray(array, 0, 0, host, w * sizeof(float), w * sizeof(float), h,
                              cudaMemcpyHostToDevice));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = array;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModeLinear;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t tex;
    CHECK(cudaCreateTextureObject(&tex, &rd, &td, nullptr));
    float* out;
    CHECK(cudaMalloc(&out, sizeof host));
    sample<<<h, 32>>>(tex, out, w, h);
    float got[h][w];
    CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            float right = host[y][x + 1 < w ? x + 1 : w - 1];
            float expect = 0.5f * (host[y][x] + right);
            if (std::fabs(got[y][x] - expect) > 1e-4f) {
                std::printf("texture_app: tex2D at (%d, %d) = %g, expected %g FAILED\n", x, y,
                            got[y][x], expect);
                return 1;
            }
        }

    const int n = 100;
    unsigned values[n];
    for (int i = 0; i < n; ++i)
        values[i] = unsigned(i * 7 + 1);
    unsigned* lin;
    unsigned* res;
    CHECK(cudaMalloc(&lin, sizeof values));
    CHECK(cudaMalloc(&res, sizeof values));
    CHECK(cudaMemcpy(lin, values, sizeof values, cudaMemcpyHostToDevice));
    cudaResourceDesc lrd = {};
    lrd.resType = cudaResourceTypeLinear;
    lrd.res.linear.devPtr = lin;
    lrd.res.linear.desc = cudaCreateChannelDesc<unsigned>();
    lrd.res.linear.sizeInBytes = sizeof values;
    cudaTextureDesc ltd = {};
    ltd.readMode = cudaReadModeElementType;
    cudaTextureObject_t ltex;
    CHECK(cudaCreateTextureObject(&ltex, &lrd, &ltd, nullptr));
    fetch<<<4, 32>>>(ltex, res, n);
    unsigned back[n];
    CHECK(cudaMemcpy(back, res, sizeof back, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
        if (back[i] != values[i] * 3u) {
            std::printf("texture_app: tex1Dfetch at %d FAILED\n", i);
            return 1;
        }

    cudaChannelFormatDesc f2 = cudaCreateChannelDesc<float2>();
    cudaArray_t surf_array;
    CHECK(cudaMallocArray(&surf_array, &f2, w, h, cudaArraySurfaceLoadStore));
    cudaResourceDesc srd = {};
    srd.resType = cudaResourceTypeArray;
    srd.res.array.array = surf_array;
    cudaSurfaceObject_t surf;
    CHECK(cudaCreateSurfaceObject(&surf, &srd));
    fill<<<h, 32>>>(surf, w, h);
    float2 filled[h][w];
    CHECK(cudaMemcpy2DFromArray(filled, w * sizeof(float2), surf_array, 0, 0, w * sizeof(float2), h,
                                cudaMemcpyDeviceToHost));
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            if (filled[y][x].x != float(x) || filled[y][x].y != float(y)) {
                std::printf("texture_app: surf2Dwrite at (%d, %d) FAILED\n", x, y);
                return 1;
            }

    CHECK(cudaDestroySurfaceObject(surf));
    CHECK(cudaDestroyTextureObject(tex));
    CHECK(cudaDestroyTextureObject(ltex));
    CHECK(cudaFreeArray(array));
    CHECK(cudaFreeArray(surf_array));
    CHECK(cudaFree(out));
    CHECK(cudaFree(lin));
    CHECK(cudaFree(res));
    std::printf("texture_app: OK\n");
    return 0;
}
