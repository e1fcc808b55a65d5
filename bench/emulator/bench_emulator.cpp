// Emulator throughput: thread instructions per second on an arithmetic-heavy, a memory-heavy and
// a divergent kernel, and a tensor-core GEMM (wmma, f16 in, f32 accumulate), next to the same
// computation in plain C++ (this file is compiled -O2) on one core; prints a table and writes
// JSON (--json FILE).
#include "emulator/device.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace cfr::emu;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

template <class F>
double best_of(int n, F f) {
    double best = 1e30;
    for (int i = 0; i < n; ++i) {
        auto t = Clock::now();
        f();
        best = std::min(best, seconds_since(t));
    }
    return best;
}

void die(const Error& e) {
    if (e) {
        std::fprintf(stderr, "error: %s\n", e.message.c_str());
        std::exit(1);
    }
}

struct Params {
    std::vector<uint8_t> b;
    template <class T>
    Params& add(T v) {
        size_t off = (b.size() + alignof(T) - 1) / alignof(T) * alignof(T);
        b.resize(off + sizeof(T));
        std::memcpy(b.data() + off, &v, sizeof(T));
        return *this;
    }
};

// Native references (volatile sinks keep the loops).
volatile float sink_f;
volatile unsigned sink_u;

void native_arith(int n, int iters, std::vector<float>& out) {
    for (int i = 0; i < n; ++i) {
        float x = i * 0.001f, y = 1.0f;
        unsigned h = unsigned(i);
        for (int k = 0; k < iters; ++k) {
            x = std::fma(x, 0.999f, 0.5f); // nvcc contracts x * c + d
            y = std::fma(y, 0.75f, x);
            h = h * 1664525u + 1013904223u;
            h ^= h >> 13;
        }
        out[i] = x + y + float(h & 1023);
    }
}
void native_saxpy(const std::vector<float>& x, std::vector<float>& y, float a, int n, int reps) {
    for (int i = 0; i < n; ++i) {
        float acc = y[i];
        for (int r = 0; r < reps; ++r)
            acc = a * x[(i + r * 97) % n] + acc;
        y[i] = acc;
    }
}
void native_collatz(const std::vector<unsigned>& in, std::vector<unsigned>& steps) {
    for (size_t i = 0; i < in.size(); ++i) {
        unsigned v = in[i], s = 0;
        while (v != 1) {
            if (v & 1)
                v = 3 * v + 1;
            else
                v >>= 1;
            ++s;
        }
        steps[i] = s;
    }
}

// C (m x n) = A (m x k) x B (k x n), row-major, scaled by alpha: the wmma_gemm kernel's product.
void native_gemm(const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c,
                 int m, int n, int k, float alpha) {
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            float acc = 0;
            for (int kk = 0; kk < k; ++kk)
                acc += a[size_t(i) * k + kk] * b[size_t(kk) * n + j];
            c[size_t(i) * n + j] = acc * alpha;
        }
}

// The IEEE half of a small integer (exact).
uint16_t half_of(int v) {
    if (v == 0) return 0;
    uint32_t f = 0;
    const float x = float(v);
    std::memcpy(&f, &x, 4);
    const uint32_t sign = f >> 31, exponent = ((f >> 23) & 0xff) - 127 + 15;
    return uint16_t(sign << 15 | exponent << 10 | (f & 0x7fffff) >> 13);
}

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace

int main(int argc, char** argv) {
    std::string json_path, only;
    unsigned threads = 2;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--json") && i + 1 < argc) json_path = argv[++i];
        if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = unsigned(std::atoi(argv[++i]));
        if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i]; // one kernel
    }
    DeviceOptions opt;
    opt.threads = threads;
    Device dev(opt);
    Module* mod = nullptr;
    die(dev.load_module(
        read_text(std::string(CFRJIT_SOURCE_DIR) + "/bench/emulator/kernels_sm75_O3.ptx"),
        "kernels_sm75_O3.ptx", &mod));
    Module* matrix = nullptr; // the tensor-core kernels of the emulator's tests
    die(dev.load_module(
        read_text(std::string(CFRJIT_SOURCE_DIR) + "/tests/emulator/data/matrix_kernels_sm80.ptx"),
        "matrix_kernels_sm80.ptx", &matrix));

    struct Row {
        std::string name;
        uint64_t thread_instructions;
        double emu_s, native_s;
    };
    std::vector<Row> rows;
    auto run = [&](const char* name, LaunchConfig cfg, const Params& p, Module* in = nullptr) {
        Kernel* k = nullptr;
        die(dev.get_kernel(in ? in : mod, name, &k));
        LaunchStats st;
        double t = best_of(3, [&] { die(dev.launch(k, cfg, p.b.data(), p.b.size(), &st)); });
        return std::make_pair(t, st.thread_instructions);
    };

    auto wanted = [&](const char* name) { return only.empty() || only == name; };
    if (wanted("arith")) { // arithmetic
        const int n = 64 * 256, iters = 200;
        DevicePtr out;
        die(dev.malloc(n * 4, &out));
        auto [t, ti] = run("arith", {{n / 256}, {256}, 0}, Params().add(out).add(iters));
        std::vector<float> ref(n), got(n);
        double nt = best_of(3, [&] { native_arith(n, iters, ref); });
        die(dev.memcpy_dtoh(got.data(), out, n * 4));
        if (got != ref) std::fprintf(stderr, "warning: arith results differ\n");
        rows.push_back({"arith (fma + integer hash loop)", ti, t, nt});
    }
    if (wanted("saxpy")) { // memory
        const int n = 1 << 16, reps = 16;
        std::vector<float> x(n), y(n);
        for (int i = 0; i < n; ++i) {
            x[i] = float(i % 100);
            y[i] = 1.0f;
        }
        DevicePtr px, py;
        die(dev.malloc(n * 4, &px));
        die(dev.malloc(n * 4, &py));
        die(dev.memcpy_htod(px, x.data(), n * 4));
        die(dev.memcpy_htod(py, y.data(), n * 4));
        auto [t, ti] = run("saxpy", {{n / 256}, {256}, 0},
                           Params().add(px).add(py).add(2.0f).add(n).add(reps));
        double nt = best_of(3, [&] {
            std::vector<float> yy = y;
            native_saxpy(x, yy, 2.0f, n, reps);
            sink_f = yy[7];
        });
        rows.push_back({"saxpy (gather loads, memory bound)", ti, t, nt});
    }
    if (wanted("collatz")) { // divergent
        const int n = 1 << 15;
        std::vector<unsigned> in(n), steps(n);
        for (int i = 0; i < n; ++i)
            in[i] = unsigned(i + 1);
        DevicePtr pin, ps;
        die(dev.malloc(n * 4, &pin));
        die(dev.malloc(n * 4, &ps));
        die(dev.memcpy_htod(pin, in.data(), n * 4));
        auto [t, ti] = run("collatz", {{n / 256}, {256}, 0}, Params().add(pin).add(ps));
        double nt = best_of(3, [&] {
            native_collatz(in, steps);
            sink_u = steps[5];
        });
        std::vector<unsigned> got(n);
        die(dev.memcpy_dtoh(got.data(), ps, n * 4));
        if (got != steps) std::fprintf(stderr, "warning: collatz results differ\n");
        rows.push_back({"collatz (divergent loop)", ti, t, nt});
    }

    if (wanted("wmma_gemm")) { // tensor cores: one warp per 16 x 16 tile of C
        const int m = 128, n = 128, k = 128;
        std::vector<float> a(size_t(m) * k), b(size_t(k) * n), ref(size_t(m) * n);
        std::vector<uint16_t> ha(a.size()), hb(b.size());
        for (size_t i = 0; i < a.size(); ++i)
            ha[i] = half_of(int(a[i] = float(int(i * 3 % 7) - 3)));
        for (size_t i = 0; i < b.size(); ++i)
            hb[i] = half_of(int(b[i] = float(int(i * 5 % 9) - 4)));
        DevicePtr pa, pb, pc;
        die(dev.malloc(ha.size() * 2, &pa));
        die(dev.malloc(hb.size() * 2, &pb));
        die(dev.malloc(ref.size() * 4, &pc));
        die(dev.memcpy_htod(pa, ha.data(), ha.size() * 2));
        die(dev.memcpy_htod(pb, hb.data(), hb.size() * 2));
        const int warps = (m / 16) * (n / 16);
        auto [t, ti] = run("wmma_gemm", {{unsigned(warps / 4)}, {128}, 0},
                           Params().add(pa).add(pb).add(pc).add(m).add(n).add(k).add(0.5f), matrix);
        double nt = best_of(3, [&] {
            native_gemm(a, b, ref, m, n, k, 0.5f);
            sink_f = ref[7];
        });
        std::vector<float> got(ref.size());
        die(dev.memcpy_dtoh(got.data(), pc, got.size() * 4));
        if (got != ref) std::fprintf(stderr, "warning: wmma_gemm results differ\n");
        rows.push_back({"wmma_gemm (128^3, f16 -> f32)", ti, t, nt});
    }

    nlohmann::json j;
    j["host_threads"] = threads;
    std::printf("%-38s %14s %10s %12s %10s %9s\n", "kernel", "thread instr", "emu s", "instr/s",
                "native s", "slowdown");
    for (auto& r : rows) {
        double rate = double(r.thread_instructions) / r.emu_s;
        double slow = r.emu_s / r.native_s;
        std::printf("%-38s %14llu %10.4f %12.3e %10.5f %8.1fx\n", r.name.c_str(),
                    (unsigned long long)r.thread_instructions, r.emu_s, rate, r.native_s, slow);
        j["kernels"].push_back({{"kernel", r.name},
                                {"thread_instructions", r.thread_instructions},
                                {"emulator_seconds", r.emu_s},
                                {"thread_instructions_per_second", rate},
                                {"native_seconds", r.native_s},
                                {"slowdown", slow}});
    }
    if (!json_path.empty()) std::ofstream(json_path) << j.dump(2) << "\n";
    return 0;
}
