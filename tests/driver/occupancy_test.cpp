// Function attributes and the occupancy calculator of the emulated sm_90 device, against values
// worked out by hand from its limits: 64 warps, 32 blocks, 64K registers (four sub-partitions,
// 256-register units per warp) and 228 KiB of shared memory (1 KiB reserved per block, 128-byte
// units) per multiprocessor.
#if __has_include(<cuda.h>)
#include "driver_fixtures.hpp"

using namespace fixtures;

namespace {

// regs40: 40 registers, no shared memory. regs300: 300 registers declared, 255 (the most a thread
// has) counted. shared20000: 40 registers, 20000 bytes of static shared memory of its own.
// calls_table: the 1000-byte module .shared table that a function it calls uses. bounded and
// required: at most 128 threads per block (.maxntid, .reqntid).
const char* kOccupancyPtx = R"(
.version 7.0
.target sm_75
.address_size 64
.shared .align 4 .b8 table[1000];
.func (.param .b32 r) use_table()
{
    .reg .b32 %r<2>;
    ld.shared.u32 %r1, [table+4];
    st.param.b32 [r], %r1;
    ret;
}
.visible .entry regs40()
{
    .reg .b32 %r<40>;
    ret;
}
.visible .entry shared20000()
{
    .shared .align 4 .b8 buf[20000];
    .reg .b32 %r<40>;
    mov.u32 %r1, 1;
    st.shared.u32 [buf], %r1;
    ret;
}
.visible .entry calls_table()
{
    .reg .b32 %r<2>;
    {
    .param .b32 r;
    call.uni (r), use_table, ();
    ld.param.b32 %r1, [r];
    }
    ret;
}
.visible .entry bounded()
.maxntid 128, 1, 1
{
    ret;
}
.visible .entry required()
.reqntid 64, 2
{
    ret;
}
.visible .entry regs300()
{
    .reg .b32 %r<300>;
    ret;
}
)";

struct OccupancyModule {
    CUmodule module = nullptr;
    CUfunction regs40 = nullptr, shared20000 = nullptr, calls_table = nullptr, regs300 = nullptr;
    CUfunction bounded = nullptr, required = nullptr;
    OccupancyModule() {
        REQUIRE(cuModuleLoadData(&module, kOccupancyPtx) == CUDA_SUCCESS);
        REQUIRE(cuModuleGetFunction(&regs40, module, "regs40") == CUDA_SUCCESS);
        REQUIRE(cuModuleGetFunction(&shared20000, module, "shared20000") == CUDA_SUCCESS);
        REQUIRE(cuModuleGetFunction(&calls_table, module, "calls_table") == CUDA_SUCCESS);
        REQUIRE(cuModuleGetFunction(&regs300, module, "regs300") == CUDA_SUCCESS);
        REQUIRE(cuModuleGetFunction(&bounded, module, "bounded") == CUDA_SUCCESS);
        REQUIRE(cuModuleGetFunction(&required, module, "required") == CUDA_SUCCESS);
    }
    ~OccupancyModule() { cuModuleUnload(module); }
};

int attribute(CUfunction f, CUfunction_attribute a) {
    int v = -1;
    REQUIRE(cuFuncGetAttribute(&v, a, f) == CUDA_SUCCESS);
    return v;
}

int blocks(CUfunction f, int block_size, size_t dynamic_shared) {
    int n = -1;
    REQUIRE(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, block_size, dynamic_shared) ==
            CUDA_SUCCESS);
    return n;
}

size_t dynamic_shared_of_128_per_thread(int block_size) {
    return size_t(block_size) * 128;
}

} // namespace

TEST_CASE("function attributes: PTX version is the PTX's target, binary version the device's, "
          "static shared memory the kernel's") {
    primary();
    OccupancyModule m;
    CHECK(attribute(m.regs40, CU_FUNC_ATTRIBUTE_PTX_VERSION) == 75);
    CHECK(attribute(m.regs40, CU_FUNC_ATTRIBUTE_BINARY_VERSION) == 90);
    CHECK(attribute(m.regs40, CU_FUNC_ATTRIBUTE_NUM_REGS) == 40);
    CHECK(attribute(m.regs300, CU_FUNC_ATTRIBUTE_NUM_REGS) == 255);
    CHECK(attribute(m.regs40, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) == 1024);
    CHECK(attribute(m.regs300, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) == 256);
    CHECK(attribute(m.bounded, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) == 128);
    CHECK(attribute(m.required, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) == 128);
    CHECK(attribute(m.shared20000, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) == 20000);
    CHECK(attribute(m.regs40, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) == 0);
    CHECK(attribute(m.calls_table, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) == 1000);
    CHECK(attribute(m.shared20000, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) ==
          48 * 1024 - 20000);
    CHECK(attribute(m.regs40, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT) == -1);
    CHECK(attribute(m.regs40, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH) == 0);
    int v = 0;
    CHECK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX, m.regs40) == CUDA_ERROR_INVALID_VALUE);

    CUlibrary library = nullptr;
    REQUIRE(cuLibraryLoadData(&library, kOccupancyPtx, nullptr, nullptr, 0, nullptr, nullptr, 0) ==
            CUDA_SUCCESS);
    CUkernel kernel = nullptr;
    REQUIRE(cuLibraryGetKernel(&kernel, library, "regs40") == CUDA_SUCCESS);
    CHECK(cuKernelGetAttribute(&v, CU_FUNC_ATTRIBUTE_PTX_VERSION, kernel, 0) == CUDA_SUCCESS);
    CHECK(v == 75);
    CHECK(cuLibraryUnload(library) == CUDA_SUCCESS);
}

TEST_CASE("function attributes: the dynamic shared memory limit and the carveout are checked") {
    primary();
    OccupancyModule m;
    CHECK(cuFuncSetAttribute(m.shared20000, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             227 * 1024 - 20000 + 1) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuFuncSetAttribute(m.shared20000, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 0) ==
          CUDA_SUCCESS);
    CHECK(attribute(m.shared20000, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) == 0);
    CHECK(cuFuncSetAttribute(m.regs40, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 101) ==
          CUDA_ERROR_INVALID_VALUE);
    CHECK(cuFuncSetAttribute(m.regs40, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 50) ==
          CUDA_SUCCESS);
    CHECK(attribute(m.regs40, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT) == 50);
}

TEST_CASE("occupancy: active blocks per multiprocessor") {
    primary();
    OccupancyModule m;
    // 40 registers: 1280 per warp, 12 warps per sub-partition, 48 per multiprocessor.
    CHECK(blocks(m.regs40, 128, 0) == 12);
    CHECK(blocks(m.regs40, 256, 0) == 6);
    CHECK(blocks(m.regs40, 1024, 0) == 1);
    CHECK(blocks(m.regs40, 1025, 0) == 0);
    // 32 threads: the 32 block slots limit.
    CHECK(blocks(m.regs40, 32, 0) == 32);
    // 20000 + 1024 bytes in 128-byte units: 21120, 11 per 228 KiB.
    CHECK(blocks(m.shared20000, 128, 0) == 11);
    // 10000 more: 31104 allocated, 7 blocks.
    CHECK(blocks(m.shared20000, 128, 10000) == 7);
    // Above the function's dynamic limit (48 KiB - 20000) until it is raised.
    CHECK(blocks(m.shared20000, 128, 30000) == 0);
    REQUIRE(cuFuncSetAttribute(m.shared20000, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                               100000) == CUDA_SUCCESS);
    CHECK(blocks(m.shared20000, 128, 30000) == 4);
    // 255 registers: 8192 per warp, 8 warps per multiprocessor.
    CHECK(blocks(m.regs300, 256, 0) == 1);
    CHECK(blocks(m.regs300, 288, 0) == 0);
    int n = 0;
    CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
              &n, m.regs40, 128, 0, CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE) == CUDA_SUCCESS);
    CHECK(n == 12);
    CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, m.regs40, 128, 0, 2) ==
          CUDA_ERROR_INVALID_VALUE);
    CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(nullptr, m.regs40, 128, 0) ==
          CUDA_ERROR_INVALID_VALUE);
}

TEST_CASE("occupancy: the block size of the highest occupancy") {
    primary();
    OccupancyModule m;
    int grid = 0, block = 0;
    // 48 warps at most: first reached, from 1024 down, by 768 threads (2 blocks).
    REQUIRE(cuOccupancyMaxPotentialBlockSize(&grid, &block, m.regs40, nullptr, 0, 0) ==
            CUDA_SUCCESS);
    CHECK(block == 768);
    CHECK(grid == 2 * 132);
    // Limited to 100 threads: 100 gives 12 blocks (1200 threads), 96 gives 16 (1536).
    REQUIRE(cuOccupancyMaxPotentialBlockSize(&grid, &block, m.regs40, nullptr, 0, 100) ==
            CUDA_SUCCESS);
    CHECK(block == 96);
    CHECK(grid == 16 * 132);
    // 128 bytes of dynamic shared memory per thread: at most 384 threads fit in 48 KiB; 384 gives
    // 4 blocks (registers), 352 also 4.
    REQUIRE(cuOccupancyMaxPotentialBlockSizeWithFlags(&grid, &block, m.regs40,
                                                      dynamic_shared_of_128_per_thread, 0, 0,
                                                      CU_OCCUPANCY_DEFAULT) == CUDA_SUCCESS);
    CHECK(block == 384);
    CHECK(grid == 4 * 132);
    // 255 registers: 256 threads, one block.
    REQUIRE(cuOccupancyMaxPotentialBlockSize(&grid, &block, m.regs300, nullptr, 0, 0) ==
            CUDA_SUCCESS);
    CHECK(block == 256);
    CHECK(grid == 132);
    // .maxntid 128: 16 blocks of 128 fill the 64 warps.
    REQUIRE(cuOccupancyMaxPotentialBlockSize(&grid, &block, m.bounded, nullptr, 0, 0) ==
            CUDA_SUCCESS);
    CHECK(block == 128);
    CHECK(grid == 16 * 132);
}

TEST_CASE("occupancy: dynamic shared memory available per block, and clusters") {
    primary();
    OccupancyModule m;
    size_t bytes = 0;
    // 228 KiB / 4 = 58368, less 1024 reserved and 20000 static.
    REQUIRE(cuOccupancyAvailableDynamicSMemPerBlock(&bytes, m.shared20000, 4, 128) == CUDA_SUCCESS);
    CHECK(bytes == 37344);
    // One block: the 227 KiB a block may have, less the static 20000.
    REQUIRE(cuOccupancyAvailableDynamicSMemPerBlock(&bytes, m.shared20000, 1, 128) == CUDA_SUCCESS);
    CHECK(bytes == 227 * 1024 - 20000);
    // 13 blocks of 128 threads exceed the registers whatever the shared memory.
    REQUIRE(cuOccupancyAvailableDynamicSMemPerBlock(&bytes, m.shared20000, 13, 128) ==
            CUDA_SUCCESS);
    CHECK(bytes == 0);

    // 40 registers, 128 threads: 12 blocks per multiprocessor, 16 multiprocessors per GPC, 8 GPCs.
    CUlaunchConfig config{};
    config.gridDimX = 8;
    config.gridDimY = config.gridDimZ = 1;
    config.blockDimX = 128;
    config.blockDimY = config.blockDimZ = 1;
    int n = 0;
    REQUIRE(cuOccupancyMaxPotentialClusterSize(&n, m.regs40, &config) == CUDA_SUCCESS);
    CHECK(n == 8);
    CHECK(cuOccupancyMaxActiveClusters(&n, m.regs40, &config) == CUDA_ERROR_INVALID_CLUSTER_SIZE);
    CUlaunchAttribute cluster{};
    cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    cluster.value.clusterDim.x = 2;
    cluster.value.clusterDim.y = 1;
    cluster.value.clusterDim.z = 1;
    config.attrs = &cluster;
    config.numAttrs = 1;
    REQUIRE(cuOccupancyMaxActiveClusters(&n, m.regs40, &config) == CUDA_SUCCESS);
    CHECK(n == 12 * 16 / 2 * 8);
    cluster.value.clusterDim.x = 16; // beyond the portable 8
    CHECK(cuOccupancyMaxActiveClusters(&n, m.regs40, &config) == CUDA_ERROR_INVALID_CLUSTER_SIZE);
}
#endif
