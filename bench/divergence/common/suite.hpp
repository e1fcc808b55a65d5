// Host-side pieces shared by the divergence suite: the size and iteration arguments, kernel
// arguments bound to device buffers or values, and sampled checking for GPU-sized problems. The
// buffers, the input hash and the PASS/FAIL checker are the examples' (examples/common).
#pragma once

#include "examples/common/problem.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

namespace suite {

using examples::Buffer;
using examples::Checker;
using examples::hash;
using examples::Launch;

enum class SizeClass { Tiny, Gpu, Custom };

// The command line of every suite program:
//   <name>_drv [tiny|gpu|N] [--iterations N] [--O0|--O3] [--ptx FILE]
//   <name>_rt  [tiny|gpu|N] [--iterations N]
// tiny (the default) runs in well under a second on the emulated driver; gpu is sized for an
// H100 (tens of milliseconds of kernel time or more); N is the program's own scale (its
// README row says which quantity). --iterations overrides how often the main kernel runs.
struct Options {
    SizeClass size = SizeClass::Tiny;
    long scale = 0;     // the N of a custom size
    int iterations = 0; // 0: the program's default for its size
    std::string level = "O3";
    std::string ptx; // empty: the build tree's <name>.<level>.ptx
    bool driver_api = true;

    // The problem's value for this size: tiny, gpu, or the custom scale.
    long pick(long tiny, long gpu) const {
        switch (size) {
        case SizeClass::Tiny:
            return tiny;
        case SizeClass::Gpu:
            return gpu;
        case SizeClass::Custom:
            break;
        }
        return scale;
    }
    int iterations_or(int tiny, int gpu) const {
        if (iterations > 0) return iterations;
        return size == SizeClass::Tiny ? tiny : gpu;
    }
};

[[noreturn]] inline void usage(const char* name, bool driver_api) {
    std::fprintf(stderr, "usage: %s_%s [tiny|gpu|N] [--iterations N]%s\n", name,
                 driver_api ? "drv" : "rt", driver_api ? " [--O0|--O3] [--ptx FILE]" : "");
    std::exit(2);
}

inline long positive_number(const char* name, bool driver_api, const char* text) {
    char* end = nullptr;
    const long v = std::strtol(text, &end, 10);
    if (!*text || *end || v <= 0) usage(name, driver_api);
    return v;
}

inline Options parse_options(const char* name, bool driver_api, int argc, char** argv) {
    Options o;
    o.driver_api = driver_api;
    bool sized = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--iterations" && i + 1 < argc) {
            o.iterations = static_cast<int>(positive_number(name, driver_api, argv[++i]));
        } else if (driver_api && (a == "--O0" || a == "--O3")) {
            o.level = a.substr(2);
        } else if (driver_api && a == "--ptx" && i + 1 < argc) {
            o.ptx = argv[++i];
        } else if (!sized && a == "tiny") {
            o.size = SizeClass::Tiny;
            sized = true;
        } else if (!sized && a == "gpu") {
            o.size = SizeClass::Gpu;
            sized = true;
        } else if (!sized && !a.empty() && a[0] != '-') {
            o.size = SizeClass::Custom;
            o.scale = positive_number(name, driver_api, argv[i]);
            sized = true;
        } else {
            usage(name, driver_api);
        }
    }
    return o;
}

// One kernel argument: a device buffer (by its index in the problem's buffers()) or a value of at
// most eight bytes, passed as cuLaunchKernel's kernelParams entry.
struct Arg {
    bool is_buffer = false;
    std::size_t buffer = 0;
    std::uint64_t bits = 0;
    std::size_t bytes = 0;
};

inline Arg buf(std::size_t index) {
    return {true, index, 0, 0};
}

template <class T>
Arg val(T v) {
    static_assert(sizeof(T) <= sizeof(std::uint64_t));
    Arg a;
    std::memcpy(&a.bits, &v, sizeof(T));
    a.bytes = sizeof(T);
    return a;
}

// Kernel parameters in stable storage: one 8-byte slot per argument (a buffer's device address,
// or the value's bytes at the start of the slot) and the array of pointers to the slots.
class Params {
public:
    template <class Address>
    Params(std::initializer_list<Arg> args, const std::vector<Address>& device)
        : slots_(args.size(), 0) {
        std::size_t i = 0;
        for (const Arg& a : args) {
            if (a.is_buffer) {
                const Address address = device.at(a.buffer);
                std::memcpy(&slots_[i], &address, sizeof address);
            } else {
                std::memcpy(&slots_[i], &a.bits, a.bytes);
            }
            ++i;
        }
        for (auto& s : slots_)
            pointers_.push_back(&s);
    }
    void** data() { return pointers_.data(); }

private:
    std::vector<std::uint64_t> slots_;
    std::vector<void*> pointers_;
};

// Indices of the elements a check looks at: all of them up to `limit`, else an even spread of
// `limit` of them (GPU-sized problems, whose CPU reference would take longer than the kernels).
inline std::vector<std::size_t> sample(std::size_t n, std::size_t limit = 1 << 14) {
    std::vector<std::size_t> out;
    if (n <= limit) {
        for (std::size_t i = 0; i < n; ++i)
            out.push_back(i);
        return out;
    }
    const std::size_t stride = n / limit;
    for (std::size_t i = 0; i < limit; ++i)
        out.push_back(i * stride + hash(static_cast<std::uint32_t>(i)) % stride);
    out.push_back(n - 1);
    return out;
}

// A Checker that compares sampled elements and reports how many it looked at.
template <class T>
void expect(Checker& k, const char* what, std::size_t i, const T& got, const T& want) {
    if (got == want) return;
    k.note(std::string(what) + "[" + std::to_string(i) + "] = " + std::to_string(got) +
           ", expected " + std::to_string(want));
}

} // namespace suite
