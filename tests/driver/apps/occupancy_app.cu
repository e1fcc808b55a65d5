// Sizes a launch with the occupancy calculator through cudart: cudaOccupancyMaxPotentialBlockSize
// and its variable-shared-memory form must give what a host model of the device's limits (read
// from cudaGetDeviceProperties and cudaFuncGetAttributes) gives, the kernel's attributes must name
// the PTX it came from (compute_75) and the device it runs on (sm_90), and the kernel, launched as
// the calculator suggests, must compute the host's sum. Prints "occupancy_app: OK".
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

// Sum of x*x+1 over the input, per block through dynamic shared memory.
__global__ void sum_squares(const unsigned* in, unsigned* out, int n) {
    extern __shared__ unsigned partial[];
    unsigned sum = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        sum += in[i] * in[i] + 1;
    partial[threadIdx.x] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned block = 0;
        for (unsigned t = 0; t < blockDim.x; ++t)
            block += partial[t];
        atomicAdd(out, block);
    }
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e = (call);                                                                    \
        if (e != cudaSuccess) {                                                                    \
            std::printf("occupancy_app: %s failed: %s\n", #call, cudaGetErrorString(e));           \
            return false;                                                                          \
        }                                                                                          \
    } while (0)

#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::printf("occupancy_app: FAILED: %s\n", #cond);                                     \
            return false;                                                                          \
        }                                                                                          \
    } while (0)

namespace {

// The limits of the CUDA occupancy calculator; register allocation units and sub-partitions are
// not device properties: those of sm_90.
struct Model {
    cudaDeviceProp prop;
    cudaFuncAttributes attr;

    int blocks(int block_size, size_t dynamic_shared) const {
        if (block_size > attr.maxThreadsPerBlock) return 0;
        const int warps = (block_size + prop.warpSize - 1) / prop.warpSize;
        const int regs_per_warp = (attr.numRegs * prop.warpSize + 255) / 256 * 256;
        const int warps_by_regs = prop.regsPerMultiprocessor / 4 / regs_per_warp * 4;
        const size_t shared =
            (attr.sharedSizeBytes + dynamic_shared + prop.reservedSharedMemPerBlock + 127) / 128 *
            128;
        const int by_shared = int(prop.sharedMemPerMultiprocessor / shared);
        return std::min({prop.maxBlocksPerMultiProcessor,
                         prop.maxThreadsPerMultiProcessor / prop.warpSize / warps,
                         warps_by_regs / warps, by_shared});
    }

    template <class Dynamic>
    void best(Dynamic dynamic, int* grid, int* block) const {
        int best_threads = 0;
        const int limit = std::min(prop.maxThreadsPerBlock, attr.maxThreadsPerBlock);
        for (int size = limit; size > 0; size -= prop.warpSize) {
            const int n = blocks(size, dynamic(size));
            if (n * size > best_threads) {
                best_threads = n * size;
                *block = size;
                *grid = n * prop.multiProcessorCount;
            }
            if (best_threads == prop.maxThreadsPerMultiProcessor) break;
        }
    }
};

size_t shared_for(int block_size) {
    return size_t(block_size) * sizeof(unsigned);
}

bool run() {
    Model m;
    CHECK(cudaGetDeviceProperties(&m.prop, 0));
    CHECK(cudaFuncGetAttributes(&m.attr, sum_squares));
    EXPECT(m.attr.ptxVersion == 75);
    EXPECT(m.attr.binaryVersion == m.prop.major * 10 + m.prop.minor);

    int grid = 0, block = 0, want_grid = 0, want_block = 0;
    CHECK(cudaOccupancyMaxPotentialBlockSize(&grid, &block, sum_squares, 0, 0));
    m.best([](int) { return size_t(0); }, &want_grid, &want_block);
    std::printf("occupancy_app: %d registers, block %d, grid %d\n", m.attr.numRegs, block, grid);
    EXPECT(block == want_block && grid == want_grid);

    CHECK(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&grid, &block, sum_squares, shared_for));
    m.best(shared_for, &want_grid, &want_block);
    EXPECT(block == want_block && grid == want_grid);
    int active = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active, sum_squares, block,
                                                        shared_for(block)));
    EXPECT(active == m.blocks(block, shared_for(block)));
    EXPECT(active * m.prop.multiProcessorCount == grid);

    const int n = 100000;
    std::vector<unsigned> host(n);
    unsigned want = 0;
    for (int i = 0; i < n; ++i) {
        host[i] = unsigned(i * 7 + 3);
        want += host[i] * host[i] + 1;
    }
    unsigned *in = nullptr, *out = nullptr;
    CHECK(cudaMalloc(&in, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&out, sizeof(unsigned)));
    CHECK(cudaMemcpy(in, host.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(out, 0, sizeof(unsigned)));
    sum_squares<<<grid, block, shared_for(block)>>>(in, out, n);
    CHECK(cudaGetLastError());
    unsigned got = 0;
    CHECK(cudaMemcpy(&got, out, sizeof(unsigned), cudaMemcpyDeviceToHost));
    EXPECT(got == want);
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    return true;
}

} // namespace

int main() {
    if (!run()) return 1;
    std::printf("occupancy_app: OK\n");
    return 0;
}
