// The kernel driver_api_app loads, as PTX and as a fatbin.
extern "C" __global__ void scale(int* data, int factor, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] *= factor;
}
