// The other half of rdc_app (nvcc -rdc=true): the __device__ function and variables kern_accumulate
// uses, and a kernel of its own, kern_finish, that reads the variable.
__device__ int dev_total;
__constant__ int dev_scale = 3;

__device__ int transform(int x) {
    return x * dev_scale + 1;
}

extern "C" __global__ void kern_finish(int* values, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) values[i] += dev_total;
}
