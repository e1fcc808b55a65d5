// The other half of rdc_template_app (nvcc -rdc=true): no visible kernel, only a template kernel
// instantiated for int and float (.weak entries) and a kernel with internal linkage, which calls a
// __device__ function of the other unit.
#include <cuda_runtime.h>

__device__ int offset_of(int i); // rdc_template_app.cu

template <class T>
__global__ void scale(T* values, int n, T factor) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) values[i] *= factor;
}

namespace {

__global__ void offset(int* values, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) values[i] += offset_of(i);
}

} // namespace

cudaError_t scale_ints(int* values, int n, int factor) {
    scale<int><<<(n + 127) / 128, 128>>>(values, n, factor);
    return cudaDeviceSynchronize();
}

cudaError_t scale_floats(float* values, int n, float factor) {
    scale<float><<<(n + 127) / 128, 128>>>(values, n, factor);
    return cudaDeviceSynchronize();
}

cudaError_t add_offset(int* values, int n) {
    offset<<<(n + 127) / 128, 128>>>(values, n);
    return cudaDeviceSynchronize();
}
