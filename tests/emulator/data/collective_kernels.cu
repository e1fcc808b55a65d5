// Warp collectives for the emulator's tests (tests/emulator/warp_collective_test.cpp).
// collective_kernels_sm80.ptx is this file compiled by
//   nvcc -arch=compute_80 -O3 -ptx collective_kernels.cu -o collective_kernels_sm80.ptx
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

// out[8 * tid ..]: __reduce_{add,min,max}_sync on unsigned and int, __reduce_{and,or,xor}_sync,
// and cg::reduce (plus, less, greater) over a tiled partition of 32, lanes below `n` taking part
// (the member mask of the intrinsics, a coalesced group for cg::reduce).
extern "C" __global__ void reduce_sync(const unsigned* in, unsigned* out, int n) {
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x % 32;
    const unsigned v = in[tid];
    unsigned* o = out + 11 * tid;
    if (lane >= unsigned(n)) return;
    const unsigned mask = n == 32 ? 0xffffffffu : (1u << n) - 1;
    o[0] = __reduce_add_sync(mask, v);
    o[1] = __reduce_min_sync(mask, v);
    o[2] = __reduce_max_sync(mask, v);
    o[3] = unsigned(__reduce_min_sync(mask, int(v)));
    o[4] = unsigned(__reduce_max_sync(mask, int(v)));
    o[5] = __reduce_and_sync(mask, v);
    o[6] = __reduce_or_sync(mask, v);
    o[7] = __reduce_xor_sync(mask, v);
    cg::coalesced_group g = cg::coalesced_threads();
    o[8] = cg::reduce(g, v, cg::plus<unsigned>());
    o[9] = cg::reduce(g, v, cg::less<unsigned>());
    o[10] = unsigned(cg::reduce(g, int(v), cg::greater<int>()));
}
