// Shape (a) of the convergence tests with elect.sync (sm_90): an outer loop whose trip count each
// warp reads from memory, around an inner loop whose trip count each lane reads; elect.sync in
// the outer body. nvcc -arch=compute_90 -ptx elect.cu -o elect.ptx
extern "C" __global__ void outer_elect(const int* trips, const int* lane_trips, const float* data,
                                       float* out) {
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    float sum = 0.0f;
    unsigned leaders = 0;
    const int n = trips[warp];
    for (int i = 0; i < n; ++i) {
        unsigned leader;
        asm volatile("{\n\t.reg .pred is;\n\telect.sync %0|is, 0xffffffff;\n\t}" : "=r"(leader));
        leaders += leader;
        const int m = lane_trips[i * 32 + lane];
        for (int j = 0; j < m; ++j)
            sum += data[j * 32 + lane];
    }
    out[warp * 32 + lane] = sum + float(leaders);
}
