// The kernels of the convergence tests (tests/passes/convergent: wmma, mma.sync, ldmatrix, redux,
// match, shfl, vote, bar.sync and elect.sync in an outer loop of a per-warp trip count around a
// per-lane inner loop; a warp operation or warp barrier on one arm of a divergent if-else; a loop
// with two exits around a shuffle) as a program: each kernel launched over two blocks of two
// warps on the inputs of test_convergent.cpp, and a hash of every buffer after it printed. Its
// output does not depend on the driver, so a run under the shim with any pipeline must print
// what the run alone prints (tests/shim/run_program.sh; on a GPU, scripts/gpu-check.sh). Where
// a kernel's result would depend on the order in which a GPU runs warps or blocks, it runs in a
// shape that has no such order: either_* in one block (thread t's arm writes out[t + 64], which
// thread t + 64 of a second block writes as well), outer_bar in blocks of one warp (it reads a
// neighbour's shared word after the barrier, which a warp past the barrier may write again).
// compute_90 PTX (elect.sync). `convergent_app --strict-emulator` leaves out either_vote and
// either_syncwarp, which reach their warp operation along two paths of an unstructured region:
// a GPU runs them (the lanes wait for each other), the emulated driver's strict convergence check
// refuses them. Prints one line per kernel, then "convergent_app: OK", or "FAILED: <what>".
#include "../../passes/convergent/branches.cu"
#include "../../passes/convergent/elect.cu"
#include "../../passes/convergent/loops.cu"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

struct Shape {
    int blocks, threads;
};
constexpr Shape kTwoBlocks{2, 64}, kOneBlock{1, 64}, kWarpBlocks{4, 32};
constexpr int kAll = 128; // threads of every shape at most
constexpr int kBuffers = 8, kWords = 4096;

void cuda(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::printf("FAILED: %s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}

// test::divergent_words: small per-thread words (trip counts, indices, matrix elements).
std::vector<uint32_t> divergent_words(uint32_t seed) {
    std::vector<uint32_t> words(kWords);
    uint32_t x = seed * 2654435761u + 12345u;
    for (auto& word : words) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        word = x % 8;
    }
    return words;
}

// branches.cu's contract: masks[t] names the lanes of t's warp that take the arm.
std::vector<uint32_t> arm_masks(bool arm, const std::vector<uint32_t>& in) {
    auto takes_arm = [&](int t) {
        const auto v = static_cast<int32_t>(in[t]);
        return arm ? (v & 1) != 0 : v > 4 || static_cast<int32_t>(in[t + 32]) < 2;
    };
    std::vector<uint32_t> masks(kWords, 0);
    for (int t = 0; t < kAll; ++t)
        for (int lane = 0; lane < 32; ++lane)
            if (takes_arm(t / 32 * 32 + lane)) masks[t] |= 1u << lane;
    return masks;
}

uint64_t fnv1a(const std::vector<uint32_t>& words, uint64_t hash) {
    for (const uint32_t word : words)
        for (int byte = 0; byte < 4; ++byte) {
            hash ^= (word >> (8 * byte)) & 0xffu;
            hash *= 1099511628211ull;
        }
    return hash;
}

struct Buffers {
    uint32_t* words[kBuffers] = {};

    template <class T>
    T* as(int i) const {
        return reinterpret_cast<T*>(words[i]);
    }
};

enum class Masks { None, Arm, Either };

bool strict_emulator = false; // leave out the kernels the strict convergence check refuses

bool runs(const char* name) {
    return !strict_emulator ||
           (std::strcmp(name, "either_vote") != 0 && std::strcmp(name, "either_syncwarp") != 0);
}

// Fills the buffers with the kernel's inputs, launches it, and prints the hash of every buffer.
template <class Launch>
void run(const char* name, Masks masks, const Buffers& b, Launch launch) {
    if (!runs(name)) return;
    std::vector<std::vector<uint32_t>> host;
    for (int i = 0; i < kBuffers; ++i)
        host.push_back(divergent_words(i + 1));
    if (masks != Masks::None) host[1] = arm_masks(masks == Masks::Arm, host[0]);
    for (int i = 0; i < kBuffers; ++i)
        cuda(cudaMemcpy(b.words[i], host[i].data(), kWords * 4, cudaMemcpyHostToDevice), name);
    launch();
    cuda(cudaGetLastError(), name);
    cuda(cudaDeviceSynchronize(), name);
    uint64_t hash = 14695981039346656037ull;
    for (int i = 0; i < kBuffers; ++i) {
        cuda(cudaMemcpy(host[i].data(), b.words[i], kWords * 4, cudaMemcpyDeviceToHost), name);
        hash = fnv1a(host[i], hash);
    }
    std::printf("%-16s %016llx\n", name, static_cast<unsigned long long>(hash));
}

} // namespace

int main(int argc, char** argv) {
    strict_emulator = argc > 1 && std::strcmp(argv[1], "--strict-emulator") == 0;
    Buffers b;
    for (auto& words : b.words)
        cuda(cudaMalloc(&words, kWords * 4), "cudaMalloc");
    const auto trips = b.as<int>(0), lane_trips = b.as<int>(1);
    const auto data = b.as<float>(2), out = b.as<float>(3);
#define LAUNCH(kernel, masks, shape, ...)                                                          \
    run(#kernel, masks, b, [&] { kernel<<<shape.blocks, shape.threads>>>(__VA_ARGS__); })
#define LOOP(kernel, ...)                                                                          \
    LAUNCH(kernel, Masks::None, kTwoBlocks, trips, lane_trips, data, out, __VA_ARGS__)
    LAUNCH(plain, Masks::None, kTwoBlocks, trips, lane_trips, data, out);
    LOOP(outer_wmma, b.as<half>(4), b.as<half>(5), b.as<float>(6));
    LOOP(outer_mma, b.as<unsigned>(4));
    LOOP(outer_ldmatrix, b.as<unsigned>(4));
    LAUNCH(outer_redux, Masks::None, kTwoBlocks, trips, lane_trips, data, out);
    LAUNCH(outer_match, Masks::None, kTwoBlocks, trips, lane_trips, data, out);
    LAUNCH(outer_shfl, Masks::None, kTwoBlocks, trips, lane_trips, data, out);
    LAUNCH(outer_vote, Masks::None, kTwoBlocks, trips, lane_trips, data, out);
    LAUNCH(outer_bar, Masks::None, kWarpBlocks, trips, lane_trips, data, out);
    LAUNCH(outer_elect, Masks::None, kTwoBlocks, trips, lane_trips, data, out);
    const auto in = b.as<int>(0), arms_out = b.as<int>(2);
    const auto masks = b.as<unsigned>(1);
    LAUNCH(arm_plain, Masks::Arm, kTwoBlocks, in, masks, arms_out);
    LAUNCH(arm_shfl, Masks::Arm, kTwoBlocks, in, masks, arms_out);
    LAUNCH(arm_vote, Masks::Arm, kTwoBlocks, in, masks, arms_out);
    LAUNCH(arm_syncwarp, Masks::Arm, kTwoBlocks, in, masks, arms_out);
    LAUNCH(either_plain, Masks::Either, kOneBlock, in, masks, arms_out);
    LAUNCH(either_vote, Masks::Either, kOneBlock, in, masks, arms_out);
    LAUNCH(either_syncwarp, Masks::Either, kOneBlock, in, masks, arms_out);
    LAUNCH(exits_shfl, Masks::None, kTwoBlocks, in, b.as<int>(1), arms_out, 64);
    for (auto* words : b.words)
        cuda(cudaFree(words), "cudaFree");
    std::printf("convergent_app: OK\n");
    return 0;
}
