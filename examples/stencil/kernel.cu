// A 1-D five-point stencil through a shared-memory tile with halo: the halo loads and the clamped
// boundaries are the only (structured) branches.
#define ST_BLOCK 256
#define ST_R 2

extern "C" __global__ void stencil(const int* in, int* out, int n) {
    __shared__ int tile[ST_BLOCK + 2 * ST_R];
    int g = blockIdx.x * ST_BLOCK + threadIdx.x;
    int l = threadIdx.x + ST_R;
    int gc = g < n ? g : n - 1;
    tile[l] = in[gc];
    if (threadIdx.x < ST_R) {
        int left = g - ST_R;
        int right = g + ST_BLOCK;
        tile[l - ST_R] = in[left < 0 ? 0 : left];
        tile[l + ST_BLOCK] = in[right >= n ? n - 1 : right];
    }
    __syncthreads();
    if (g < n) {
        int sum = 0;
        for (int k = -ST_R; k <= ST_R; k++)
            sum += (k == 0 ? 4 : 1) * tile[l + k];
        out[g] = sum;
    }
}
