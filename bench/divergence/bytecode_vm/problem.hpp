// Inputs and reference for bytecode_vm: six register-machine programs (Collatz step count, gcd,
// bit count, a doubly nested loop, a random walk, a table walk) assembled here; each thread runs
// the program its input selects on its input, for at most max_steps instructions. The reference
// is the same interpreter written plainly. tiny: 256 threads, at most 512 steps, 2 launches; gpu:
// 2^20 threads (N = threads), at most 2048 steps, 100 launches.
#pragma once

#include "../common/suite.hpp"

#include <map>
#include <string>

struct BytecodeVm {
    static constexpr const char* name = "bytecode_vm";
    static constexpr std::array<const char*, 1> kernels{"bytecode_vm"};
    enum Op { Halt, Li, Add, Sub, Mul, Addi, Andi, Shri, Jz, Jnz, Jmp, Rem, Mix, Lt, Ld };
    struct Ins {
        int x, y;
    };
    static constexpr int table_mask = 1023;

    // A two-pass assembler: jumps name labels, resolved when the program is finished.
    class Asm {
    public:
        explicit Asm(std::vector<Ins>& code) : code_(code) {}
        void op(Op o, int d = 0, int a = 0, int b = 0, int imm = 0) {
            code_.push_back({o | d << 8 | a << 12 | b << 16, imm});
        }
        void jump(Op o, int a, const std::string& label) {
            fixups_.push_back({code_.size(), label});
            op(o, 0, a);
        }
        void label(const std::string& l) { labels_[l] = static_cast<int>(code_.size()); }
        void finish() {
            for (const auto& [at, l] : fixups_)
                code_[at].y = labels_.at(l);
            fixups_.clear();
            labels_.clear();
        }

    private:
        std::vector<Ins>& code_;
        std::map<std::string, int> labels_;
        std::vector<std::pair<std::size_t, std::string>> fixups_;
    };

    int threads, max_steps, iterations;
    std::vector<Ins> code;
    std::vector<int> entry;
    std::vector<std::uint32_t> input, table, out;

    explicit BytecodeVm(const suite::Options& o)
        : threads(static_cast<int>(o.pick(256, 1 << 20))),
          max_steps(o.size == suite::SizeClass::Tiny ? 512 : 2048),
          iterations(o.iterations_or(2, 100)), input(threads), table(table_mask + 1),
          out(2 * threads, 0) {
        assemble();
        for (int t = 0; t < threads; ++t)
            input[t] = suite::hash(static_cast<std::uint32_t>(t) + 0x1234567u);
        for (std::size_t i = 0; i < table.size(); ++i)
            table[i] = suite::hash(static_cast<std::uint32_t>(i) ^ 0xabcdefu) & 0xffff;
    }

    void assemble() {
        Asm a(code);
        // 0: Collatz steps of max(r0, 1).
        entry.push_back(static_cast<int>(code.size()));
        a.jump(Jnz, 0, "c_start");
        a.op(Li, 0, 0, 0, 1);
        a.label("c_start");
        a.op(Li, 3, 0, 0, 1);
        a.label("c_loop");
        a.op(Sub, 4, 0, 3);
        a.jump(Jz, 4, "c_end");
        a.op(Andi, 5, 0, 0, 1);
        a.jump(Jz, 5, "c_even");
        a.op(Add, 6, 0, 0);
        a.op(Add, 0, 6, 0);
        a.op(Addi, 0, 0, 0, 1);
        a.jump(Jmp, 0, "c_count");
        a.label("c_even");
        a.op(Shri, 0, 0, 0, 1);
        a.label("c_count");
        a.op(Addi, 2, 2, 0, 1);
        a.jump(Jmp, 0, "c_loop");
        a.label("c_end");
        a.op(Halt);
        a.finish();
        // 1: gcd(r0, r1) by remainders.
        entry.push_back(static_cast<int>(code.size()));
        a.label("g_loop");
        a.jump(Jz, 1, "g_end");
        a.op(Rem, 3, 0, 1);
        a.op(Add, 0, 1, 7);
        a.op(Add, 1, 3, 7);
        a.jump(Jmp, 0, "g_loop");
        a.label("g_end");
        a.op(Add, 2, 0, 7);
        a.op(Halt);
        a.finish();
        // 2: bit count of r0.
        entry.push_back(static_cast<int>(code.size()));
        a.label("p_loop");
        a.jump(Jz, 0, "p_end");
        a.op(Andi, 3, 0, 0, 1);
        a.op(Add, 2, 2, 3);
        a.op(Shri, 0, 0, 0, 1);
        a.jump(Jmp, 0, "p_loop");
        a.label("p_end");
        a.op(Halt);
        a.finish();
        // 3: sum of mix(i * j + r0) over i < r0 & 15, j < r1 & 15.
        entry.push_back(static_cast<int>(code.size()));
        a.op(Andi, 3, 0, 0, 15);
        a.label("n_outer");
        a.jump(Jz, 3, "n_end");
        a.op(Andi, 4, 1, 0, 15);
        a.label("n_inner");
        a.jump(Jz, 4, "n_next");
        a.op(Mul, 5, 3, 4);
        a.op(Add, 5, 5, 0);
        a.op(Mix, 5, 5);
        a.op(Add, 2, 2, 5);
        a.op(Addi, 4, 4, 0, -1);
        a.jump(Jmp, 0, "n_inner");
        a.label("n_next");
        a.op(Addi, 3, 3, 0, -1);
        a.jump(Jmp, 0, "n_outer");
        a.label("n_end");
        a.op(Halt);
        a.finish();
        // 4: a random walk of r0 & 63 steps: up by the new state or down by one.
        entry.push_back(static_cast<int>(code.size()));
        a.op(Andi, 3, 0, 0, 63);
        a.label("w_loop");
        a.jump(Jz, 3, "w_end");
        a.op(Mix, 1, 1);
        a.op(Andi, 4, 1, 0, 1);
        a.jump(Jz, 4, "w_down");
        a.op(Add, 2, 2, 1);
        a.jump(Jmp, 0, "w_next");
        a.label("w_down");
        a.op(Addi, 2, 2, 0, -1);
        a.label("w_next");
        a.op(Addi, 3, 3, 0, -1);
        a.jump(Jmp, 0, "w_loop");
        a.label("w_end");
        a.op(Halt);
        a.finish();
        // 5: r0 & 31 table lookups chained through the state, with a data-dependent bonus.
        entry.push_back(static_cast<int>(code.size()));
        a.op(Andi, 3, 0, 0, 31);
        a.label("t_loop");
        a.jump(Jz, 3, "t_end");
        a.op(Ld, 4, 1);
        a.op(Add, 2, 2, 4);
        a.op(Add, 1, 1, 2);
        a.op(Mix, 1, 1);
        a.op(Lt, 5, 4, 1);
        a.jump(Jz, 5, "t_skip");
        a.op(Addi, 2, 2, 0, 3);
        a.label("t_skip");
        a.op(Addi, 3, 3, 0, -1);
        a.jump(Jmp, 0, "t_loop");
        a.label("t_end");
        a.op(Halt);
        a.finish();
    }

    suite::Launch launch() const { return {static_cast<unsigned>((threads + 127) / 128), 128, 0}; }
    std::vector<suite::Buffer> buffers() {
        return {examples::in(code), examples::in(entry), examples::in(input), examples::in(table),
                examples::out(out)};
    }
    template <class Gpu>
    void run(Gpu& gpu) {
        using suite::buf, suite::val;
        for (int i = 0; i < iterations; ++i)
            gpu.launch(0, launch(),
                       {buf(0), buf(1), buf(2), buf(3), buf(4), val(threads),
                        val(static_cast<int>(entry.size())), val(max_steps), val(table_mask)});
    }

    static std::uint32_t mix(std::uint32_t v) {
        v ^= v >> 16;
        v *= 0x7feb352du;
        v ^= v >> 15;
        return v;
    }
    // The interpreter, plainly: (r2, instructions executed).
    std::pair<std::uint32_t, std::uint32_t> interpret(std::uint32_t in) const {
        std::uint32_t r[8] = {in & 0xffff, (in >> 16) | 1u, 0, 0, 0, 0, 0, 0};
        int pc = entry[in % entry.size()];
        int steps = 0;
        while (steps < max_steps) {
            const Ins ins = code[pc++];
            ++steps;
            const int d = (ins.x >> 8) & 7, a = (ins.x >> 12) & 7, b = (ins.x >> 16) & 7;
            const auto imm = static_cast<std::uint32_t>(ins.y);
            switch (ins.x & 0xff) {
            case Li:
                r[d] = imm;
                break;
            case Add:
                r[d] = r[a] + r[b];
                break;
            case Sub:
                r[d] = r[a] - r[b];
                break;
            case Mul:
                r[d] = r[a] * r[b];
                break;
            case Addi:
                r[d] = r[a] + imm;
                break;
            case Andi:
                r[d] = r[a] & imm;
                break;
            case Shri:
                r[d] = r[a] >> imm;
                break;
            case Jz:
                if (r[a] == 0) pc = ins.y;
                break;
            case Jnz:
                if (r[a] != 0) pc = ins.y;
                break;
            case Jmp:
                pc = ins.y;
                break;
            case Rem:
                r[d] = r[b] ? r[a] % r[b] : 0;
                break;
            case Mix:
                r[d] = mix(r[a]);
                break;
            case Lt:
                r[d] = r[a] < r[b];
                break;
            case Ld:
                r[d] = table[r[a] & table_mask];
                break;
            default:
                return {r[2], static_cast<std::uint32_t>(steps)};
            }
        }
        return {r[2], static_cast<std::uint32_t>(steps)};
    }
    int check() const {
        suite::Checker k(name);
        const auto checked = suite::sample(threads);
        for (std::size_t t : checked) {
            const auto [result, steps] = interpret(input[t]);
            suite::expect(k, "result", t, out[2 * t], result);
            suite::expect(k, "steps", t, out[2 * t + 1], steps);
        }
        return k.finish(checked.size());
    }
};
