// Two kernels and two module-scope variables, which the image tests find in every form nvcc
// writes (tests/ptx/images.cmake).
__device__ int counter;
__constant__ float factor = 2.0f;

extern "C" __global__ void K1(int* out) { out[threadIdx.x] = counter * static_cast<int>(factor); }

extern "C" __global__ void K2(int* out) { atomicAdd(&counter, out[threadIdx.x]); }
