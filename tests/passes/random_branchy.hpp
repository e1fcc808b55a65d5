// Random kernels for branch fusion: nests of divergent if-then-else whose second arm is usually a
// mutation of the first (so the arms align in part and often have the same shape), built from
// integer arithmetic, predicates, guarded instructions, loads and per-thread stores. The body is
// for entry_kernel(): it leaves a hash of its registers in out[thread] and its stores in
// out[128 + thread].
#pragma once

#include <fmt/format.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

namespace cfr::test {

class BranchyKernel {
public:
    explicit BranchyKernel(uint64_t seed) : rng_(seed) {}

    std::string generate(int depth = 3) {
        std::string body = "    mov.u32 %r10, %r2;\n";
        for (int r = 11; r < 20; ++r)
            body += fmt::format("    mad.lo.u32 %r{}, %r{}, {}, {};\n", r, r - 1, pick(3, 9),
                                pick(1, 5));
        body += "    and.b32 %r3, %r1, 31;\n"
                "    mul.wide.u32 %rd6, %r3, 4;\n"
                "    add.s64 %rd6, %rd1, %rd6;\n" // &in[thread % 32]
                "    add.s64 %rd7, %rd5, 512;\n"  // &out[128 + thread]
                "    setp.gt.u32 %p4, %r2, 3;\n";
        body += print(block(depth));
        body += "    xor.b32 %r3, %r10, %r11;\n";
        for (int r = 12; r < 20; ++r)
            body += fmt::format("    mad.lo.u32 %r3, %r3, 31, %r{};\n", r);
        body += "    selp.u32 %r4, 1, 0, %p4;\n"
                "    add.u32 %r3, %r3, %r4;\n"
                "    st.global.u32 [%rd5], %r3;\n"
                "    ret;\n";
        return body;
    }

private:
    struct Code;
    struct Branch {
        std::string condition; // a setp into %p1..%p3
        int predicate = 1;
        std::shared_ptr<Code> then_arm, else_arm;
    };
    struct Item {
        std::string instruction; // empty for a branch
        Branch branch;
    };
    struct Code {
        std::vector<Item> items;
    };

    std::mt19937_64 rng_;
    int labels_ = 0;

    int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
    bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
    std::string reg() { return fmt::format("%r{}", pick(10, 19)); }
    std::string source() { return chance(0.3) ? std::to_string(pick(0, 20)) : reg(); }

    std::string instruction() {
        static const char* ops[] = {"add.u32", "sub.u32", "mul.lo.u32", "and.b32",
                                    "or.b32",  "xor.b32", "min.u32",    "max.u32"};
        switch (pick(0, 9)) {
        case 0:
            return fmt::format("mad.lo.u32 {}, {}, {}, {};", reg(), reg(), source(), source());
        case 1:
            return fmt::format("setp.{}.u32 %p{}, {}, {};", chance(0.5) ? "lt" : "ge", pick(1, 3),
                               reg(), source());
        case 2:
            return fmt::format("@{}%p{} add.u32 {}, {}, {};", chance(0.5) ? "!" : "", pick(1, 4),
                               reg(), reg(), source());
        case 3:
            return fmt::format("selp.u32 {}, {}, {}, %p{};", reg(), source(), source(), pick(1, 4));
        case 4:
            return fmt::format("ld.global.u32 {}, [%rd6+{}];", reg(), 4 * pick(0, 3));
        case 5:
            return fmt::format("st.global.u32 [%rd7], {};", reg());
        default:
            return fmt::format("{} {}, {}, {};", ops[pick(0, 7)], reg(), reg(), source());
        }
    }

    std::shared_ptr<Code> block(int depth) {
        auto code = std::make_shared<Code>();
        for (int k = pick(1, 5); k > 0; --k)
            code->items.push_back({instruction(), {}});
        if (depth > 0 && chance(0.8)) {
            Branch b;
            b.predicate = pick(1, 3);
            b.condition = fmt::format("setp.{}.u32 %p{}, {}, {};", chance(0.5) ? "lt" : "ne",
                                      b.predicate, reg(), pick(2, 9));
            b.then_arm = block(depth - 1);
            b.else_arm = chance(0.85) ? mutate(*b.then_arm) : block(depth - 1);
            code->items.push_back({"", b});
            for (int k = chance(0.5) ? pick(1, 2) : 0; k > 0; --k)
                code->items.push_back({instruction(), {}});
        }
        return code;
    }

    // The same code with some instructions changed, dropped or added; branches keep their shape.
    std::shared_ptr<Code> mutate(const Code& code) {
        auto out = std::make_shared<Code>();
        for (const auto& item : code.items) {
            if (item.instruction.empty()) {
                Branch b = item.branch;
                b.then_arm = mutate(*b.then_arm);
                b.else_arm = mutate(*b.else_arm);
                out->items.push_back({"", b});
                continue;
            }
            if (chance(0.25)) {
                if (chance(0.3)) continue;
                out->items.push_back({instruction(), {}});
            } else {
                out->items.push_back(item);
            }
            if (chance(0.1)) out->items.push_back({instruction(), {}});
        }
        if (out->items.empty()) out->items.push_back({instruction(), {}});
        return out;
    }

    std::string print(const std::shared_ptr<Code>& code) {
        std::string text;
        for (const auto& item : code->items) {
            if (!item.instruction.empty()) {
                text += "    " + item.instruction + "\n";
                continue;
            }
            const int id = labels_++;
            text += fmt::format("    {}\n    @%p{} bra ELSE{};\n", item.branch.condition,
                                item.branch.predicate, id);
            text += print(item.branch.then_arm);
            text += fmt::format("    bra JOIN{};\nELSE{}:\n", id, id);
            text += print(item.branch.else_arm);
            text += fmt::format("JOIN{}:\n", id);
        }
        return text;
    }
};

} // namespace cfr::test
