// A Driver-API program that loads modules and launches kernels from many threads and streams at
// once, for running under libcfrjit.so (tests/concurrency/run.sh):
//   concurrency_app PTX_DIR [THREADS] [STREAMS] [LAUNCHES]
// THREADS threads (default 16), released together, each load one of four examples' PTX with
// cuModuleLoadData into the shared primary context, then launch its kernel LAUNCHES times on each
// of STREAMS streams (the per-thread default stream and streams of their own), with asynchronous
// copies, and unload the module. The results are checked afterwards, in thread order, so that
// the output is the same on every run.
#include "common/problem.hpp"
#include "loop_jump_in/problem.hpp"
#include "multi_exit_loop/problem.hpp"
#include "nested_loops/problem.hpp"
#include "short_circuit/problem.hpp"

#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <latch>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <variant>
#include <vector>

namespace {

using Problem = std::variant<ShortCircuit, MultiExitLoop, NestedLoops, LoopJumpIn>;
constexpr size_t kKinds = std::variant_size_v<Problem>;

Problem make_problem(size_t kind) {
    switch (kind) {
    case 0:
        return ShortCircuit{};
    case 1:
        return MultiExitLoop{};
    case 2:
        return NestedLoops{};
    default:
        return LoopJumpIn{};
    }
}

const char* name_of(const Problem& p) {
    return std::visit([](const auto& q) { return std::decay_t<decltype(q)>::name; }, p);
}

// The first driver error any thread met, reported once at the end.
std::mutex g_error_mutex;
std::string g_error;

bool ok(CUresult r, const char* what, int thread) {
    if (r == CUDA_SUCCESS) return true;
    const char* name = nullptr;
    cuGetErrorName(r, &name);
    std::lock_guard lock(g_error_mutex);
    if (g_error.empty())
        g_error =
            "thread " + std::to_string(thread) + ": " + what + " failed: " + (name ? name : "?");
    return false;
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// One problem on one stream: its device buffers, filled, launched on and read back.
struct Job {
    Problem problem;
    CUstream stream = nullptr;
    std::vector<CUdeviceptr> device;
};

bool launch_job(Job& job, CUfunction fn, int launches, int thread) {
    return std::visit(
        [&](auto& p) {
            auto buffers = p.buffers();
            auto scalars = p.scalars();
            job.device.assign(buffers.size(), 0);
            std::vector<void*> params;
            for (size_t i = 0; i < buffers.size(); ++i) {
                if (!ok(cuMemAlloc(&job.device[i], buffers[i].bytes), "cuMemAlloc", thread) ||
                    !ok(cuMemcpyHtoDAsync(job.device[i], buffers[i].host, buffers[i].bytes,
                                          job.stream),
                        "cuMemcpyHtoDAsync", thread))
                    return false;
                params.push_back(&job.device[i]);
            }
            for (auto& s : scalars)
                params.push_back(&s);
            const examples::Launch l = p.launch();
            for (int i = 0; i < launches; ++i)
                if (!ok(cuLaunchKernel(fn, l.grid, 1, 1, l.block, 1, 1, l.shared_bytes, job.stream,
                                       params.data(), nullptr),
                        "cuLaunchKernel", thread))
                    return false;
            for (size_t i = 0; i < buffers.size(); ++i)
                if (buffers[i].out && !ok(cuMemcpyDtoHAsync(buffers[i].host, job.device[i],
                                                            buffers[i].bytes, job.stream),
                                          "cuMemcpyDtoHAsync", thread))
                    return false;
            return true;
        },
        job.problem);
}

struct Thread {
    size_t kind = 0;
    std::vector<Job> jobs;
};

void run_thread(Thread& me, int id, CUcontext ctx, const std::string& ptx, int streams,
                int launches, std::latch& start) {
    start.arrive_and_wait();
    if (!ok(cuCtxSetCurrent(ctx), "cuCtxSetCurrent", id)) return;
    CUmodule module = nullptr;
    CUfunction fn = nullptr;
    if (!ok(cuModuleLoadData(&module, ptx.c_str()), "cuModuleLoadData", id)) return;
    const char* name = name_of(make_problem(me.kind));
    if (!ok(cuModuleGetFunction(&fn, module, name), "cuModuleGetFunction", id)) return;
    for (int s = 0; s < streams; ++s) {
        Job job{make_problem(me.kind), nullptr, {}};
        if (s == 0)
            job.stream = CU_STREAM_PER_THREAD;
        else if (!ok(cuStreamCreate(&job.stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate", id))
            return;
        me.jobs.push_back(std::move(job));
    }
    for (auto& job : me.jobs)
        if (!launch_job(job, fn, launches, id)) return;
    for (auto& job : me.jobs) {
        ok(cuStreamSynchronize(job.stream), "cuStreamSynchronize", id);
        for (CUdeviceptr p : job.device)
            ok(cuMemFree(p), "cuMemFree", id);
        if (job.stream != CU_STREAM_PER_THREAD)
            ok(cuStreamDestroy(job.stream), "cuStreamDestroy", id);
    }
    ok(cuModuleUnload(module), "cuModuleUnload", id);
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2 || argc > 5) {
        std::fprintf(stderr, "usage: %s PTX_DIR [THREADS] [STREAMS] [LAUNCHES]\n", argv[0]);
        return 2;
    }
    const std::string dir = argv[1];
    const int threads = argc > 2 ? std::atoi(argv[2]) : 16;
    const int streams = argc > 3 ? std::atoi(argv[3]) : 3;
    const int launches = argc > 4 ? std::atoi(argv[4]) : 2;
    if (threads < 1 || streams < 1 || launches < 1) {
        std::fprintf(stderr, "THREADS, STREAMS and LAUNCHES must be positive\n");
        return 2;
    }
    std::vector<std::string> texts;
    for (size_t k = 0; k < kKinds; ++k) {
        texts.push_back(read_text(dir + "/" + name_of(make_problem(k)) + ".O3.ptx"));
        if (texts.back().empty()) {
            std::fprintf(stderr, "cannot read %s/%s.O3.ptx\n", dir.c_str(),
                         name_of(make_problem(k)));
            return 2;
        }
    }

    CUdevice dev;
    CUcontext ctx;
    if (!ok(cuInit(0), "cuInit", -1) || !ok(cuDeviceGet(&dev, 0), "cuDeviceGet", -1) ||
        !ok(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain", -1)) {
        std::fprintf(stderr, "%s\n", g_error.c_str());
        return 2;
    }

    std::vector<Thread> state(static_cast<size_t>(threads));
    std::latch start(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
        state[t].kind = static_cast<size_t>(t) % kKinds;
        pool.emplace_back(run_thread, std::ref(state[t]), t, ctx, std::cref(texts[state[t].kind]),
                          streams, launches, std::ref(start));
    }
    for (auto& t : pool)
        t.join();
    ok(cuDevicePrimaryCtxRelease(dev), "cuDevicePrimaryCtxRelease", -1);
    if (!g_error.empty()) {
        std::printf("concurrency_app: FAILED: %s\n", g_error.c_str());
        return 1;
    }

    int failures = 0;
    for (int t = 0; t < threads; ++t)
        for (size_t s = 0; s < state[t].jobs.size(); ++s) {
            std::printf("thread %d stream %zu: ", t, s);
            std::fflush(stdout);
            failures += std::visit([](auto& p) { return p.check(); }, state[t].jobs[s].problem);
        }
    std::printf("concurrency_app: %s (%d threads, %d streams each, %d launches per stream)\n",
                failures == 0 ? "OK" : "FAILED", threads, streams, launches);
    return failures == 0 ? 0 : 1;
}
