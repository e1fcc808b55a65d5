// Register liveness: the registers numbered, per block the upward-exposed uses and the unguarded
// definitions as bit sets, then the usual fixed point, live_in = uses + (live_out - kills).
#include "passes/fusion/liveness.hpp"

#include "ptx/def_use.hpp"
#include "ptx/walk.hpp"

#include <algorithm>

namespace cfr::fusion {
namespace {

// A register an instruction reads, or one it kills by an unguarded definition.
struct Access {
    size_t number;
    bool kills;
};

// The accesses of each block's instructions, block by block (the block's first access at
// starts[b]), and in a block the last instruction first and of each instruction its definitions
// first; the registers are numbered on the way.
struct Accesses {
    std::vector<Access> all;
    std::vector<size_t> starts; // per block, and one past the last
};

Accesses accesses_backwards(const ptx::Cfg& cfg, Liveness& liveness) {
    auto& numbers = liveness.numbers;
    const auto number = [&](std::string_view name) {
        const auto it = numbers.find(name);
        if (it != numbers.end()) return it->second;
        return numbers.emplace(std::string(name), numbers.size()).first->second;
    };
    Accesses accesses;
    std::vector<const ptx::Instruction*> code;
    for (const auto& block : cfg.blocks) {
        accesses.starts.push_back(accesses.all.size());
        code.clear();
        ptx::for_each_instruction(block.statements,
                                  [&](const ptx::Instruction& i) { code.push_back(&i); });
        for (auto it = code.rbegin(); it != code.rend(); ++it) {
            const ptx::Instruction& i = **it;
            const bool destination = ptx::has_destination(i);
            if (!i.guard)
                ptx::for_each_defined_register(i, destination, [&](std::string_view def) {
                    accesses.all.push_back({number(def), true});
                });
            ptx::for_each_used_register(i, destination, [&](std::string_view use) {
                accesses.all.push_back({number(use), false});
            });
        }
    }
    accesses.starts.push_back(accesses.all.size());
    return accesses;
}

// Per block, the registers it reads before it writes them and those it writes unguarded, as
// sets of `words` words, one block after the other.
struct BlockSets {
    std::vector<uint64_t> uses, kills;
};

BlockSets block_sets(const Accesses& accesses, size_t blocks, size_t words) {
    const auto bit = [](size_t number) { return uint64_t(1) << (number % 64); };
    BlockSets sets{std::vector<uint64_t>(blocks * words, 0),
                   std::vector<uint64_t>(blocks * words, 0)};
    for (size_t b = 0; b < blocks; ++b)
        for (size_t a = accesses.starts[b]; a < accesses.starts[b + 1]; ++a) {
            const Access& access = accesses.all[a];
            const size_t word = b * words + access.number / 64;
            if (access.kills) {
                sets.uses[word] &= ~bit(access.number);
                sets.kills[word] |= bit(access.number);
            } else {
                sets.uses[word] |= bit(access.number);
            }
        }
    return sets;
}

// The least fixed point of live_in = uses + (live_out - kills), in the layout of BlockSets.
std::vector<uint64_t> live_in_sets(const ptx::Cfg& cfg, const BlockSets& sets, size_t words) {
    const size_t n = cfg.blocks.size();
    std::vector<std::vector<ptx::BlockId>> successors(n);
    for (const auto& e : cfg.edges)
        if (e.to < n) successors[e.from].push_back(e.to);
    std::vector<uint64_t> live_in = sets.uses;
    std::vector<uint64_t> in(words);
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t b = n; b-- > 0;) {
            std::copy_n(sets.uses.begin() + ptrdiff_t(b * words), words, in.begin());
            for (const auto s : successors[b])
                for (size_t w = 0; w < words; ++w)
                    in[w] |= live_in[s * words + w] & ~sets.kills[b * words + w];
            const auto old = live_in.begin() + ptrdiff_t(b * words);
            if (!std::equal(in.begin(), in.end(), old)) {
                std::copy(in.begin(), in.end(), old);
                changed = true;
            }
        }
    }
    return live_in;
}

} // namespace

Liveness register_liveness(const ptx::Cfg& cfg) {
    Liveness result;
    const auto accesses = accesses_backwards(cfg, result);
    result.words = (result.numbers.size() + 63) / 64;
    result.live_in =
        live_in_sets(cfg, block_sets(accesses, cfg.blocks.size(), result.words), result.words);
    return result;
}

} // namespace cfr::fusion
