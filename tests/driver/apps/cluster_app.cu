// Thread-block clusters through cudart on the emulated driver (compute_90 PTX, JIT-compiled by the
// driver), each against a host reference: a __cluster_dims__(2,1,1) kernel whose blocks read their
// neighbour's shared memory between two cluster.sync()s; a kernel launched with cudaLaunchKernelEx
// in clusters of four, whose blocks add into rank 0's shared memory (distributed shared-memory
// atomics) and report their place in the cluster; the cluster attributes of the device and the
// kernels, the occupancy calculator's cluster forms, and a launch whose grid is not a whole number
// of clusters is refused. Prints "cluster_app: OK", or "FAILED: <what>".
#include <cooperative_groups.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cg = cooperative_groups;

namespace {

constexpr int kThreads = 64;
constexpr int kPairs = 3;  // clusters of two blocks
constexpr int kQuads = 2;  // clusters of four blocks
constexpr int kFields = 4; // what each block of a quad reports

int failures = 0;

void check(bool ok, const char* what) {
    if (!ok) {
        std::printf("FAILED: %s\n", what);
        ++failures;
    }
}

void check_cuda(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::printf("FAILED: %s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}

} // namespace

// out[block][t] = the neighbour's tile reversed, plus 1000 x this block's rank.
__global__ void __cluster_dims__(2, 1, 1) swap_pairs(const int* in, int* out) {
    __shared__ int tile[kThreads];
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank();
    const int t = int(threadIdx.x);
    tile[t] = in[blockIdx.x * kThreads + t];
    cluster.sync();
    const int* other = cluster.map_shared_rank(tile, rank ^ 1);
    out[blockIdx.x * kThreads + t] = other[kThreads - 1 - t] + 1000 * int(rank);
    cluster.sync(); // the neighbour reads this block's tile until here
}

// Every thread adds its value into rank 0's total; rank 0 writes the cluster's sum. Thread 0 of
// each block reports its rank, the cluster's size, its x position in the cluster and the cluster's
// x index.
__global__ void sum_quads(const int* in, int* sums, int* places) {
    __shared__ int total;
    cg::cluster_group cluster = cg::this_cluster();
    if (threadIdx.x == 0) total = 0;
    cluster.sync();
    int* root = cluster.map_shared_rank(&total, 0);
    atomicAdd(root, in[blockIdx.x * kThreads + threadIdx.x]);
    cluster.sync();
    if (cluster.block_rank() == 0 && threadIdx.x == 0) sums[blockIdx.x / 4] = total;
    if (threadIdx.x == 0) {
        int* place = places + blockIdx.x * kFields;
        place[0] = int(cluster.block_rank());
        place[1] = int(cluster.num_blocks());
        place[2] = int(cluster.block_index().x);
        unsigned cluster_x = 0;
        asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(cluster_x));
        place[3] = int(cluster_x);
    }
    cluster.sync(); // rank 0's total is read by the others until here
}

namespace {

std::vector<int> inputs(int n) {
    std::vector<int> v(n);
    for (int i = 0; i < n; ++i)
        v[i] = (i * 37 + 11) % 101 - 50;
    return v;
}

template <class T>
T* to_device(const std::vector<T>& v) {
    T* p = nullptr;
    check_cuda(cudaMalloc(&p, v.size() * sizeof(T)), "cudaMalloc");
    check_cuda(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), "copy in");
    return p;
}

template <class T>
std::vector<T> to_host(const T* p, size_t n) {
    std::vector<T> v(n);
    check_cuda(cudaMemcpy(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost), "copy out");
    return v;
}

void test_pairs() {
    const int blocks = 2 * kPairs, n = blocks * kThreads;
    const std::vector<int> in = inputs(n);
    int* d_in = to_device(in);
    int* d_out = to_device(std::vector<int>(n, 0));
    swap_pairs<<<blocks, kThreads>>>(d_in, d_out);
    check_cuda(cudaDeviceSynchronize(), "swap_pairs");
    std::vector<int> expected(n);
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < kThreads; ++t)
            expected[b * kThreads + t] = in[(b ^ 1) * kThreads + kThreads - 1 - t] + 1000 * (b % 2);
    check(to_host(d_out, n) == expected, "swap_pairs reads the neighbour's shared memory");
    cudaFuncAttributes attributes{};
    check_cuda(cudaFuncGetAttributes(&attributes, swap_pairs), "cudaFuncGetAttributes");
    check(attributes.requiredClusterWidth == 2 && attributes.requiredClusterHeight == 1 &&
              attributes.requiredClusterDepth == 1,
          "swap_pairs' required cluster shape is 2 x 1 x 1");
}

cudaLaunchConfig_t quad_config(int blocks, cudaLaunchAttribute* attribute, unsigned cluster) {
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(kThreads);
    attribute->id = cudaLaunchAttributeClusterDimension;
    attribute->val.clusterDim.x = cluster;
    attribute->val.clusterDim.y = 1;
    attribute->val.clusterDim.z = 1;
    config.attrs = attribute;
    config.numAttrs = 1;
    return config;
}

void test_quads() {
    const int blocks = 4 * kQuads, n = blocks * kThreads;
    const std::vector<int> in = inputs(n);
    int* d_in = to_device(in);
    int* d_sums = to_device(std::vector<int>(kQuads, 0));
    int* d_places = to_device(std::vector<int>(blocks * kFields, -1));
    cudaLaunchAttribute attribute = {};
    cudaLaunchConfig_t config = quad_config(blocks, &attribute, 4);
    check_cuda(cudaLaunchKernelEx(&config, sum_quads, (const int*)d_in, d_sums, d_places),
               "cudaLaunchKernelEx in clusters of four");
    check_cuda(cudaDeviceSynchronize(), "sum_quads");
    std::vector<int> sums(kQuads, 0), places(blocks * kFields);
    for (int i = 0; i < n; ++i)
        sums[i / (4 * kThreads)] += in[i];
    for (int b = 0; b < blocks; ++b) {
        const int expected[kFields] = {b % 4, 4, b % 4, b / 4};
        for (int f = 0; f < kFields; ++f)
            places[b * kFields + f] = expected[f];
    }
    check(to_host(d_sums, kQuads) == sums, "sum_quads adds into rank 0's shared memory");
    check(to_host(d_places, blocks * kFields) == places, "sum_quads' places in the cluster");

    int clusters = 0;
    check_cuda(cudaOccupancyMaxActiveClusters(&clusters, sum_quads, &config),
               "cudaOccupancyMaxActiveClusters");
    check(clusters > 0, "clusters of four fit on the device");
    cudaLaunchAttribute bad_attribute = {};
    cudaLaunchConfig_t bad = quad_config(6, &bad_attribute, 4);
    check(cudaLaunchKernelEx(&bad, sum_quads, (const int*)d_in, d_sums, d_places) != cudaSuccess,
          "a grid of 6 blocks in clusters of 4 is refused");
    cudaGetLastError();
}

} // namespace

int main() {
    int cluster_launch = 0;
    check_cuda(cudaDeviceGetAttribute(&cluster_launch, cudaDevAttrClusterLaunch, 0), "attribute");
    check(cluster_launch == 1, "the device supports cluster launches");
    test_pairs();
    test_quads();
    if (failures) return 1;
    std::printf("cluster_app: OK\n");
    return 0;
}
