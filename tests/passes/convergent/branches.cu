// Kernels for the convergence tests (tests/passes/test_convergent.cpp). Shape (b): a divergent
// if-else with a warp operation or warp barrier on one arm, plain (arm_*, for branch fusion) and
// behind a short-circuit condition (either_*, an unstructured region); the caller passes the mask
// of the lanes that take the arm. Shape (c): a loop with two exits around a shuffle among the lanes
// still in the loop (exits_shfl). The *_plain kernels are the same without the operation.
// nvcc -arch=compute_80 -ptx branches.cu -o branches.ptx

#define ARMS(EXTRA)                                                                                \
    const int t = blockIdx.x * blockDim.x + threadIdx.x;                                           \
    const int v = in[t];                                                                           \
    int r;                                                                                         \
    if (v & 1) {                                                                                   \
        r = v * 3 + in[t + 1];                                                                     \
        EXTRA;                                                                                     \
        out[t + 128] = r;                                                                          \
    } else {                                                                                       \
        r = v * 5 + in[t + 2];                                                                     \
        out[t + 256] = r;                                                                          \
    }                                                                                              \
    out[t] = r;

extern "C" __global__ void arm_plain(const int* in, const unsigned* masks, int* out) {
    ARMS(r += 7)
}

extern "C" __global__ void arm_shfl(const int* in, const unsigned* masks, int* out) {
    ARMS(r += __shfl_xor_sync(masks[t], r, 1))
}

extern "C" __global__ void arm_vote(const int* in, const unsigned* masks, int* out) {
    ARMS(r += __popc(__ballot_sync(masks[t], r > 9)))
}

extern "C" __global__ void arm_syncwarp(const int* in, const unsigned* masks, int* out) {
    ARMS(__syncwarp(masks[t]); r += out[t ^ 1])
}

#define EITHER(EXTRA)                                                                              \
    const int t = blockIdx.x * blockDim.x + threadIdx.x;                                           \
    const int v = in[t];                                                                           \
    int r = v;                                                                                     \
    if (v > 4 || in[t + 32] < 2) {                                                                 \
        r = v * 3;                                                                                 \
        EXTRA;                                                                                     \
        out[t + 64] = r;                                                                           \
    } else {                                                                                       \
        r = v * 7;                                                                                 \
    }                                                                                              \
    out[t] = r;

extern "C" __global__ void either_plain(const int* in, const unsigned* masks, int* out) {
    EITHER(r += 7)
}

extern "C" __global__ void either_vote(const int* in, const unsigned* masks, int* out) {
    EITHER(r += __popc(__ballot_sync(masks[t], r > 9)))
}

extern "C" __global__ void either_syncwarp(const int* in, const unsigned* masks, int* out) {
    EITHER(__syncwarp(masks[t]); r += out[(t ^ 1) + 64])
}

extern "C" __global__ void exits_shfl(const int* in, const int* limit, int* out, int n) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[t];
    int where = -1;
    for (int i = 0; i < n; ++i) {
        v += __shfl_down_sync(__activemask(), v, 1);
        if (v > limit[t]) {
            where = i;
            break;
        }
        v ^= in[(t + i) & 63];
        if ((v & 7) == 3) {
            where = -2 - i;
            break;
        }
    }
    out[t] = v + where;
}
