// Register liveness: the registers numbered, per block the upward-exposed uses and the unguarded
// definitions as bit sets, then the passes' liveness analysis (analysis/liveness.hpp) over them.
#include "passes/fusion/liveness.hpp"

#include "passes/analysis/liveness.hpp"
#include "ptx/def_use.hpp"
#include "ptx/walk.hpp"

#include <algorithm>
#include <bit>

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

// The blocks and their edges as a graph; edges to the virtual exit left out (nothing is live
// there).
Digraph graph_of(const ptx::Cfg& cfg) {
    Digraph graph(cfg.blocks.size());
    for (const auto& e : cfg.edges)
        if (e.to < cfg.blocks.size()) graph.add_edge(NodeId(e.from), NodeId(e.to));
    return graph;
}

analysis::LivenessFacts facts_of(const BlockSets& sets, size_t blocks, size_t registers,
                                 size_t words) {
    analysis::LivenessFacts facts;
    facts.variables = registers;
    const auto add = [&](const std::vector<uint64_t>& set, size_t b, auto& out) {
        for (size_t w = 0; w < words; ++w)
            for (uint64_t bits = set[b * words + w]; bits; bits &= bits - 1)
                out.emplace_back(uint32_t(w * 64 + size_t(std::countr_zero(bits))), uint32_t(b));
    };
    for (size_t b = 0; b < blocks; ++b) {
        add(sets.uses, b, facts.exposed);
        add(sets.kills, b, facts.killed);
    }
    return facts;
}

} // namespace

Liveness register_liveness(const ptx::Cfg& cfg) {
    Liveness result;
    const auto accesses = accesses_backwards(cfg, result);
    const size_t blocks = cfg.blocks.size(), registers = result.numbers.size();
    result.words = (registers + 63) / 64;
    const BlockSets sets = block_sets(accesses, blocks, result.words);
    result.live_in.assign(blocks * result.words, 0);
    for (const auto& [block, reg] :
         analysis::live_in(graph_of(cfg), facts_of(sets, blocks, registers, result.words)))
        result.live_in[block * result.words + reg / 64] |= uint64_t(1) << (reg % 64);
    return result;
}

} // namespace cfr::fusion
