// The opcode table (ptx/opcode_properties.hpp): every opcode's row, the variants that a modifier
// selects, the .aligned and .cc rules, the worst case for an opcode it does not know, and what
// Instruction::control() and has_destination() read from it.
#include "ptx/def_use.hpp"
#include "ptx/opcode.hpp"
#include "ptx/opcode_properties.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <string>
#include <vector>

using namespace cfr::ptx;

namespace {

// The one instruction of a kernel body.
Instruction instruction(const std::string& line) {
    const std::string text = ".version 8.8\n.target sm_100a\n.address_size 64\n.visible .entry "
                             "k()\n{\n.reg .b32 %r<9>;\n.reg .pred %p<3>;\n.reg .b64 %rd<3>;\n.reg "
                             ".f32 %f<9>;\n" +
                             line + "\n}\n";
    const Module module = parse(text, "one.ptx");
    const auto& body = *std::get<Function>(module.items.front()).body;
    for (const auto& statement : body)
        if (const auto* in = std::get_if<Instruction>(&statement)) return *in;
    FAIL("no instruction in " << line);
    return {};
}

Convergence scope(const std::string& line) {
    return properties(instruction(line)).convergence;
}

} // namespace

TEST_CASE("opcode table: a row for every opcode, spelled both ways") {
    for (size_t i = 1; i <= size_t(Opcode::Xor); ++i) {
        const auto op = static_cast<Opcode>(i);
        INFO(spelling(op));
        CHECK_FALSE(spelling(op).empty());
        CHECK(opcode_from(spelling(op)) == op);
        CHECK(properties(op).opcode == op);
        CHECK(properties(op).group != Group::Unknown);
    }
    CHECK(opcode_from("") == Opcode::Unknown);
    CHECK(opcode_from("frobnicate") == Opcode::Unknown);
    CHECK(opcode_from("ld.global") == Opcode::Unknown);
}

TEST_CASE("opcode table: convergence scopes of the warp, warpgroup, CTA and cluster operations") {
    CHECK(scope("bar.sync 0;") == Convergence::Cta);
    CHECK(scope("barrier.sync.aligned 0;") == Convergence::Cta);
    CHECK(scope("bar.arrive 1, 64;") == Convergence::Cta);
    CHECK(scope("bar.warp.sync -1;") == Convergence::Warp);
    CHECK(scope("barrier.cluster.arrive;") == Convergence::Cluster);
    CHECK(scope("shfl.sync.bfly.b32 %r1, %r2, 1, 31, -1;") == Convergence::Warp);
    CHECK(scope("vote.sync.ballot.b32 %r1, %p1, -1;") == Convergence::Warp);
    CHECK(scope("match.any.sync.b32 %r1, %r2, -1;") == Convergence::Warp);
    CHECK(scope("activemask.b32 %r1;") == Convergence::Warp);
    CHECK(scope("redux.sync.add.s32 %r1, %r2, -1;") == Convergence::Warp);
    CHECK(scope("elect.sync %r1|%p1, -1;") == Convergence::Warp);
    CHECK(scope("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, "
                "%r6, %r7, %r8}, [%rd1], %r1;") == Convergence::Warp);
    CHECK(scope("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, "
                "%r2, %r3, %r4}, {%r5, %r6}, {%f1, %f2, %f3, %f4};") == Convergence::Warp);
    CHECK(scope("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r1}, [%rd1];") == Convergence::Warp);
    CHECK(scope("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%rd1], {%r1};") == Convergence::Warp);
    CHECK(scope("movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2;") == Convergence::Warp);
    CHECK(scope("wgmma.fence.sync.aligned;") == Convergence::Warpgroup);
    CHECK(scope("setmaxnreg.inc.sync.aligned.u32 240;") == Convergence::Warpgroup);
    CHECK(scope("tcgen05.fence::before_thread_sync;") == Convergence::Warp);
    for (const char* none :
         {"add.s32 %r1, %r2, %r3;", "ld.global.u32 %r1, [%rd1];",
          "atom.global.add.u32 %r1, [%rd1], 1;", "membar.gl;", "fence.acq_rel.gpu;",
          "cp.async.commit_group;", "mbarrier.arrive.shared.b64 %rd1, [%rd2];",
          "griddepcontrol.wait;", "bra $L;", "ret;", "nanosleep.u32 100;"})
        CHECK(scope(none) == Convergence::None);
    CHECK(to_string(Convergence::Warp) == "warp");
    CHECK(to_string(Convergence::Grid) == "grid");
}

TEST_CASE("opcode table: .aligned makes any opcode warp-convergent, .cc a carry chain") {
    CHECK(scope("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync."
                "aligned [%rd1], [%rd2], 128;") == Convergence::Warp);
    CHECK(scope("tensormap.replace.tile.global_address.global.b1024.b64 [%rd1], %rd2;") ==
          Convergence::None);
    CHECK(properties(instruction("add.cc.u32 %r1, %r2, %r3;")).carry);
    CHECK(properties(instruction("addc.u32 %r1, %r2, %r3;")).carry);
    CHECK_FALSE(properties(instruction("add.u32 %r1, %r2, %r3;")).carry);
}

TEST_CASE("opcode table: an opcode it does not know gets the worst case, and prints as it was") {
    const std::string line = "frobnicate.sync.aligned.b32 %r1, %r2;";
    const auto p = properties(instruction(line));
    CHECK(p.opcode == Opcode::Unknown);
    CHECK(p.group == Group::Unknown);
    CHECK(p.convergence == Convergence::Grid);
    CHECK(p.convergent());
    CHECK(p.side_effects);
    CHECK(p.memory == Memory::ReadWrite);
    CHECK(p.divergence == DivergenceSource::Unknown);
    CHECK(p.control == ControlKind::None);
    const Instruction in = instruction(line);
    CHECK(in.opcode == Opcode::Unknown);
    CHECK(in.mnemonic() == "frobnicate");
    CHECK(in.modifiers == Words{Modifier::Sync, Modifier::Aligned, Type::B32});
    CHECK(instruction(print(in)) == in);
}

TEST_CASE("opcode table: variants, memory, destinations and sources of divergence") {
    const auto load = properties(instruction("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 "
                                             "{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1], "
                                             "%r1;"));
    CHECK(load.memory == Memory::Read);
    CHECK(load.divergence == DivergenceSource::LaneFragment);
    const auto store = instruction("wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1], "
                                   "{%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, %r1;");
    CHECK(properties(store).memory == Memory::Write);
    CHECK_FALSE(properties(store).destination);
    CHECK_FALSE(has_destination(store));
    const auto reduce = instruction("bar.red.popc.u32 %r1, 0, %p1;");
    CHECK(has_destination(reduce));
    CHECK(properties(reduce).convergence == Convergence::Cta);
    CHECK_FALSE(has_destination(instruction("bar.sync 0;")));
    CHECK(has_destination(instruction("multimem.ld_reduce.relaxed.sys.global.add.u32 %r1, "
                                      "[%rd1];")));
    CHECK_FALSE(has_destination(instruction("stackrestore.u32 %r1;")));
    CHECK(properties(Opcode::Atom).divergence == DivergenceSource::Atomic);
    CHECK(properties(Opcode::Shfl).divergence == DivergenceSource::LaneExchange);
    CHECK(properties(Opcode::Vote).divergence == DivergenceSource::None);
    CHECK(properties(Opcode::Mbarrier).divergence == DivergenceSource::Timing);
    CHECK(properties(Opcode::Ld).reads_memory());
    CHECK(properties(Opcode::St).writes_memory());
    CHECK(properties(Opcode::Fence).side_effects);
    CHECK(properties(Opcode::Sin).cost == CostClass::Transcendental);
    CHECK(properties(Opcode::Shfl).group == Group::WarpExchange);
    CHECK(properties(Opcode::Wgmma).group == Group::Matrix);
}

TEST_CASE("opcode table: control kinds, as Instruction::control() reads them") {
    CHECK(instruction("bra.uni $L;").control() == ControlKind::Branch);
    CHECK(instruction("brx.idx %r1, $T;").control() == ControlKind::IndirectBranch);
    CHECK(instruction("ret;").control() == ControlKind::Return);
    CHECK(instruction("exit;").control() == ControlKind::Exit);
    CHECK(instruction("trap;").control() == ControlKind::Trap);
    CHECK(instruction("brkpt;").control() == ControlKind::None);
    CHECK(properties(Opcode::Call).control == ControlKind::Call);
    CHECK(properties(Opcode::Call).convergence == Convergence::Grid);
}

namespace {

std::string row_text(const OpcodeProperties& p) {
    return fmt::format("opcode {} group {} control {} destination {} memory {} convergence {} "
                       "divergence {} side effects {} carry {} cost {} sources {}",
                       int(p.opcode), int(p.group), int(p.control), p.destination, int(p.memory),
                       int(p.convergence), int(p.divergence), p.side_effects, p.carry, int(p.cost),
                       int(p.sources));
}

// The variants and rules applied one word at a time, in the words' order (a variant is what the
// opcode with that word alone gets): what properties() of an instruction must give however it
// finds its row.
OpcodeProperties word_by_word(const Instruction& in) {
    OpcodeProperties p = properties(in.opcode);
    if (p.opcode == Opcode::Unknown) return p;
    for (const Word word : in.modifiers) {
        const Modifier m = word.modifier();
        if (p.group == Group::Arithmetic && m == Modifier::Cc) p.carry = true;
        if (!p.convergent() && m == Modifier::Aligned) p.convergence = Convergence::Warp;
        if (m == Modifier::Cc || m == Modifier::Aligned) continue;
        Instruction alone; // the opcode with this word alone: its variant, where it selects one
        alone.opcode = p.opcode;
        alone.modifiers.push_back(word);
        if (row_text(properties(alone)) != row_text(properties(p.opcode))) p = properties(alone);
    }
    return p;
}

} // namespace

TEST_CASE("opcode table: an instruction's row is its opcode's with the variants and rules applied "
          "word by word, for every opcode and order of words") {
    const std::vector<std::vector<Word>> word_lists = {
        {},
        {Modifier::Cc},
        {Modifier::Sync, Modifier::Aligned},
        {Modifier::Aligned, Modifier::Cc},
        {Modifier::Cc, Modifier::Aligned},
        {Modifier::Warp, Modifier::Sync},
        {Modifier::Red, Modifier::Aligned},
        {Modifier::Aligned, Modifier::Red},
        {Modifier::Cluster, Modifier::Aligned},
        {Modifier::Aligned, Modifier::Load, Modifier::Sync},
        {Modifier::Store, Modifier::Aligned, Modifier::Sync},
        {Modifier::Red, Modifier::Warp}, // two variants: the last word's
    };
    size_t checked = 0;
    for (size_t op = 0; op <= size_t(Opcode::Xor); ++op)
        for (const auto& words : word_lists) {
            Instruction in;
            in.opcode = Opcode(op);
            for (const Word w : words)
                in.modifiers.push_back(w);
            INFO(std::string(in.mnemonic()) << " with " << words.size() << " words");
            CHECK(row_text(properties(in)) == row_text(word_by_word(in)));
            ++checked;
        }
    CHECK(checked == (size_t(Opcode::Xor) + 1) * word_lists.size());
}
