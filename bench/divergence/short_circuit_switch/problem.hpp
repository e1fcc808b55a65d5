// Inputs and reference for short_circuit_switch: one hashed word per thread; the reference runs
// the same condition, switch and mixing loops plainly. tiny: 2048 threads, 16 rounds per heavy
// tail, 2 launches; gpu: 2^22 threads (N = threads), 48 rounds, 100 launches.
#pragma once

#include "../common/suite.hpp"

struct ShortCircuitSwitch {
    static constexpr const char* name = "short_circuit_switch";
    static constexpr std::array<const char*, 1> kernels{"short_circuit_switch"};
    int n, rounds, iterations;
    std::vector<std::uint32_t> in, out;

    explicit ShortCircuitSwitch(const suite::Options& o)
        : n(static_cast<int>(o.pick(2048, 1 << 22))),
          rounds(o.size == suite::SizeClass::Tiny ? 16 : 48), iterations(o.iterations_or(2, 100)),
          in(n), out(n, 0) {
        for (int t = 0; t < n; ++t)
            in[t] = suite::hash(static_cast<std::uint32_t>(t) * 3u + 11u);
    }

    suite::Launch launch() const { return {static_cast<unsigned>((n + 255) / 256), 256, 0}; }
    std::vector<suite::Buffer> buffers() { return {examples::in(in), examples::out(out)}; }
    template <class Gpu>
    void run(Gpu& gpu) {
        using suite::buf, suite::val;
        for (int i = 0; i < iterations; ++i)
            gpu.launch(0, launch(), {buf(0), buf(1), val(n), val(rounds)});
    }

    std::uint32_t heavy(std::uint32_t v, std::uint32_t salt) const {
        for (int k = 0; k < rounds; ++k) {
            v += salt + static_cast<std::uint32_t>(k);
            v ^= v >> 13;
            v *= 0x5bd1e995u;
            v ^= v >> 11;
        }
        return v;
    }
    static std::uint32_t unrolled(std::uint32_t v, std::uint32_t salt) {
        for (std::uint32_t k = 0; k < 12; ++k) {
            v += salt * (k + 1u);
            v ^= v >> 13;
            v *= 0x5bd1e995u;
            v ^= v >> 11;
        }
        return v;
    }
    std::uint32_t expected(std::uint32_t v) const {
        const bool a = (v & 3) == 0, b = ((v >> 2) & 3) == 1, c = (v >> 4) & 1;
        v = (a || b) && c ? unrolled(v, 0x1111u) : unrolled(v ^ 0x55u, 0x2222u);
        bool to_a = false;
        switch ((v >> 7) % 6u) {
        case 0:
            v ^= 0x1234u;
            to_a = true;
            break;
        case 1:
            v += 17u;
            to_a = true;
            break;
        case 2:
            v *= 3u;
            to_a = !(v & 8u);
            break;
        case 3:
            v = heavy(v, 0x3333u);
            break;
        case 4:
            return v;
        default:
            v = ~v;
            break;
        }
        return to_a ? heavy(v, 0x4444u) + 1u : heavy(v, 0x5555u) ^ 0xff00u;
    }
    int check() const {
        suite::Checker k(name);
        const auto checked = suite::sample(n);
        for (std::size_t t : checked)
            suite::expect(k, "out", t, out[t], expected(in[t]));
        return k.finish(checked.size());
    }
};
