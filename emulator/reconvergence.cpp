// Basic blocks of a decoded function and the reconvergence point of every branch: the immediate
// post-dominator of the branch's block (cfr::analysis::post_dominators; the virtual exit, which
// also post-dominates blocks that cannot reach it, maps to the function's end pc).
#include "emulator/decode.hpp"
#include "passes/analysis/dominance.hpp"
#include "ptx/digraph.hpp"

namespace cfr::emu {

namespace {

using ptx::Opcode;

// Instructions after which control leaves the function (or the program).
bool leaves_function(Opcode op) {
    return op == Opcode::Ret || op == Opcode::Exit || op == Opcode::Trap;
}

} // namespace

void find_blocks_and_reconvergence(Program& p, uint32_t fidx,
                                   const std::vector<std::string>& labels_at_pc) {
    DFunction& f = p.functions[fidx];
    uint32_t b = f.begin_pc, e = f.end_pc; // e: the synthetic end, its own block
    std::vector<char> leader(e + 1 - b, 0);
    leader[0] = 1;
    // A target outside the function is one that did not resolve (the decoder has recorded the
    // error, and the function never runs): it is treated as leaving the function.
    auto in_function = [&](uint32_t t) { return t >= b && t <= e; };
    auto is_branchy = [&](const Inst& in) {
        return in.op == Opcode::Bra || in.op == Opcode::Brx || leaves_function(in.op);
    };
    for (uint32_t pc = b; pc < e; ++pc) {
        const Inst& in = p.code[pc];
        if (!labels_at_pc[pc - b].empty()) leader[pc - b] = 1;
        if (is_branchy(in)) leader[pc + 1 - b] = 1;
        if (in.op == Opcode::Bra && in_function(in.target)) leader[in.target - b] = 1;
        if (in.aux != kNone && in.op == Opcode::Brx)
            for (uint32_t t : p.jump_tables[in.aux])
                if (in_function(t)) leader[t - b] = 1;
    }
    leader[e - b] = 1;
    f.first_block = uint32_t(p.blocks.size());
    std::vector<uint32_t> block_of(e + 1 - b);
    uint32_t nb = 0;
    for (uint32_t pc = b; pc <= e; ++pc) {
        if (leader[pc - b]) {
            BlockInfo bi;
            bi.function = fidx;
            bi.start_pc = pc;
            bi.line = p.code[pc].line;
            bi.index = nb;
            bi.label = pc - b < labels_at_pc.size() ? labels_at_pc[pc - b] : "";
            p.blocks.push_back(bi);
            ++nb;
        }
        block_of[pc - b] = nb - 1;
        p.code[pc].leader = leader[pc - b];
        p.code[pc].block = f.first_block + nb - 1;
    }
    f.block_count = nb;
    // CFG over blocks; node nb is the virtual exit (the end block nb-1 leads to it).
    Digraph g(nb + 1);
    NodeId exit = nb;
    for (uint32_t k = 0; k < nb; ++k) {
        uint32_t last = k + 1 < nb ? p.blocks[f.first_block + k + 1].start_pc - 1 : e;
        const Inst& in = p.code[last];
        if (last == e) {
            g.add_edge(k, exit);
        } else if (in.op == Opcode::Bra) {
            g.add_edge(k, in_function(in.target) ? block_of[in.target - b] : exit);
            if (in.guard != kNone) g.add_edge(k, k + 1);
        } else if (in.op == Opcode::Brx) {
            if (in.aux != kNone)
                for (uint32_t t : p.jump_tables[in.aux])
                    g.add_edge(k, in_function(t) ? block_of[t - b] : exit);
            else
                g.add_edge(k, exit);
            if (in.guard != kNone) g.add_edge(k, k + 1);
        } else if (leaves_function(in.op)) {
            g.add_edge(k, exit);
            if (in.guard != kNone) g.add_edge(k, k + 1);
        } else {
            g.add_edge(k, k + 1);
        }
    }
    const std::vector<NodeId> ip = analysis::post_dominators(g, exit).idom;
    for (uint32_t k = 0; k < nb; ++k) {
        uint32_t last = k + 1 < nb ? p.blocks[f.first_block + k + 1].start_pc - 1 : e;
        Inst& in = p.code[last];
        NodeId d = ip[k];
        in.rpc = d == exit ? e : p.blocks[f.first_block + d].start_pc;
    }
}

} // namespace cfr::emu
