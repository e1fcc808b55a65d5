// The control-flow edit layer: every way a block can end is read as a Transfer, written back as
// one, laid out, read again the same, and accepted by ptxas.
#include "ptx/cfg.hpp"
#include "ptx/control_edit.hpp"
#include "ptx/invariant.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"

#include <catch2/catch.hpp>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

using namespace cfr::ptx;

namespace {

const std::string kHeader = ".version 8.0\n.target sm_90\n.address_size 64\n";

// Five blocks, each with a label and one instruction; p and q are predicates, i an index.
const std::string kBody = R"(
    .reg .pred p, q;
    .reg .b32 i, r;
    ld.param.u32 i, [n];
$A:
    setp.eq.u32 p, i, 0;
    setp.lt.u32 q, i, 4;
    @p bra $C;
$B:
    add.u32 r, i, 1;
    bra.uni $D;
$C:
    add.u32 r, i, 2;
    ret;
$D:
    add.u32 r, i, 3;
    @!q exit;
$E:
    add.u32 r, i, 4;
)";

Module module_of(const std::string& body) {
    return parse(kHeader + ".visible .entry k(.param .u32 n)\n{\n" + body + "\n}\n", "t.ptx");
}

Function& kernel(Module& m) {
    for (TopLevel& item : m.items)
        if (auto* f = std::get_if<Function>(&item)) return *f;
    FAIL("no function");
    throw;
}

FreshLabel counter() {
    return
        [n = 0](const std::string& stem) mutable { return "$L__t_" + stem + std::to_string(n++); };
}

// The module with the function's body laid out from `cfg`, printed.
std::string with_body(Module m, const Cfg& cfg) {
    kernel(m).body = layout(cfg);
    return print(m);
}

bool ptxas_accepts(const std::string& text) {
    if (std::string(CFRJIT_PTXAS).empty()) {
        WARN("ptxas not found: edited PTX not assembled");
        return true;
    }
    static int made = 0; // ctest runs the cases of this file side by side: one name each
    const auto file = std::filesystem::temp_directory_path() /
                      ("cfrjit_control_edit_" + std::to_string(::getpid()) + "_" +
                       std::to_string(made++) + ".ptx");
    std::ofstream(file) << text;
    std::string command = CFRJIT_PTXAS;
    command += " -arch=sm_90 '" + file.string() + "' -o /dev/null > /dev/null 2>&1";
    const bool ok = std::system(command.c_str()) == 0;
    std::filesystem::remove(file);
    return ok;
}

// The block a read-back CFG reaches from `b`, past the unlabelled jumps layout adds.
BlockId past_added_jumps(const Cfg& cfg, BlockId b) {
    while (b < cfg.blocks.size() && cfg.blocks[b].label().empty()) {
        const Transfer t = transfer_of(cfg, b);
        if (t.kind != Transfer::Kind::Jump || t.guard) break;
        b = t.target;
    }
    return b;
}

// Laid out and read back, every block ends as it did (layout may add a jump after it, which
// becomes a block of its own); ptxas takes it.
void check_round_trip(const Module& m, Cfg cfg) {
    for (BlockId b = 1; b < cfg.blocks.size(); ++b)
        ensure_label(cfg, b, [&](const std::string&) { return "$L__named" + std::to_string(b); });
    const std::string text = with_body(m, cfg);
    INFO(text);
    Module again = parse(text, "edited.ptx");
    const Cfg read = build_cfg(kernel(again));
    std::vector<BlockId> read_id(cfg.blocks.size() + 1, read.exit());
    for (BlockId r = 0; r < read.blocks.size(); ++r)
        for (BlockId b = 0; b < cfg.blocks.size(); ++b)
            if (!read.blocks[r].label().empty() && read.blocks[r].label() == cfg.blocks[b].label())
                read_id[b] = r;
    read_id[0] = 0;
    for (BlockId b = 0; b < cfg.blocks.size(); ++b) {
        const Transfer expected = renumbered(transfer_of(cfg, b), [&](BlockId x) {
            return x < cfg.blocks.size() ? read_id[x] : read.exit();
        });
        Transfer got = renumbered(transfer_of(read, read_id[b]),
                                  [&](BlockId x) { return past_added_jumps(read, x); });
        INFO("block " << b);
        if (expected.kind == Transfer::Kind::FallThrough && got.kind == Transfer::Kind::Jump &&
            !got.guard)
            got = Transfer::fall_through(got.target);
        CHECK(got.kind == expected.kind);
        CHECK(got.guard == expected.guard);
        CHECK(got.successors() == expected.successors());
        CHECK(got.cases == expected.cases);
        if (expected.kind != Transfer::Kind::FallThrough) CHECK(got.uniform == expected.uniform);
        if (expected.kind == Transfer::Kind::Jump && expected.target == read.exit())
            CHECK(got.leave == expected.leave);
    }
    CHECK(ptxas_accepts(text));
}

std::string terminator_text(const Cfg& cfg, BlockId b) {
    const Instruction* t = cfg.blocks[b].terminator();
    if (!t) return "";
    std::string text; // printed, white space collapsed
    for (const char c : print(*t)) {
        const bool space = c == ' ' || c == '\t';
        if (!space || (!text.empty() && text.back() != ' ')) text += space ? ' ' : c;
    }
    return text;
}

} // namespace

TEST_CASE("control edit: every way a block ends is read as a transfer") {
    Module m = module_of(kBody);
    const Cfg cfg = build_cfg(kernel(m));
    REQUIRE(cfg.blocks.size() == 6); // the entry block holds the declarations and the load
    const auto t = transfers_of(cfg);

    CHECK(t[0].kind == Transfer::Kind::FallThrough);
    CHECK(t[0].next == 1);

    CHECK(t[1].kind == Transfer::Kind::Jump);
    CHECK(t[1].guard == Guard{"p", false});
    CHECK(t[1].target == 3);
    CHECK(t[1].next == 2);

    CHECK(t[2].kind == Transfer::Kind::Jump);
    CHECK_FALSE(t[2].guard);
    CHECK(t[2].uniform);
    CHECK(t[2].target == 4);
    CHECK(t[2].successors() == std::vector<BlockId>{4});

    CHECK(t[3].target == cfg.exit());
    CHECK(t[3].leave == LeaveKind::Return);

    CHECK(t[4].guard == Guard{"q", true});
    CHECK(t[4].target == cfg.exit());
    CHECK(t[4].leave == LeaveKind::Exit);
    CHECK(t[4].successors() == std::vector<BlockId>{cfg.exit(), 5});

    CHECK(t[5].kind == Transfer::Kind::FallThrough);
    CHECK(t[5].next == cfg.exit());
    for (BlockId b = 0; b < cfg.blocks.size(); ++b)
        CHECK(transfer_of(cfg, b) == t[b]);
}

TEST_CASE("control edit: writing a transfer writes the terminator and the edges together") {
    Module m = module_of(kBody);
    Cfg cfg = build_cfg(kernel(m));
    const FreshLabel fresh = counter();

    SECTION("an unconditional jump, uniform") {
        set_transfer(cfg, 3, Transfer::jump(1, true), fresh);
        CHECK(terminator_text(cfg, 3) == "bra.uni $A;");
    }
    SECTION("a conditional branch, each polarity") {
        set_transfer(cfg, 2, Transfer::branch(Guard{"q", false}, 5, 3), fresh);
        CHECK(terminator_text(cfg, 2) == "@q bra $E;");
        Transfer inverted = transfer_of(cfg, 2);
        inverted.invert();
        set_transfer(cfg, 2, inverted, fresh);
        CHECK(terminator_text(cfg, 2) == "@!q bra $C;");
        CHECK(transfer_of(cfg, 2).next == 5);
    }
    SECTION("leaving the function: ret, exit, trap, guarded or not") {
        Transfer leave = Transfer::jump(cfg.exit());
        set_transfer(cfg, 1, leave, fresh);
        CHECK(terminator_text(cfg, 1) == "ret;");
        leave.leave = LeaveKind::Trap;
        leave.guard = Guard{"p", true};
        leave.next = 2;
        set_transfer(cfg, 1, leave, fresh);
        CHECK(terminator_text(cfg, 1) == "@!p trap;");
        leave.leave = LeaveKind::Exit;
        leave.guard.reset();
        set_transfer(cfg, 2, leave, fresh);
        CHECK(terminator_text(cfg, 2) == "exit;");
    }
    SECTION("a fall-through removes the terminator") {
        set_transfer(cfg, 3, Transfer::fall_through(4), fresh);
        CHECK(terminator_text(cfg, 3).empty());
    }
    SECTION("a jump to a block without a label gives it one") {
        // Block 0 has no label: the declarations and the load before $A.
        REQUIRE(cfg.blocks[0].label().empty());
        set_transfer(cfg, 5, Transfer::branch(Guard{"p", false}, 0, cfg.exit()), fresh);
        CHECK(cfg.blocks[0].label() == "$L__t_b0");
        CHECK(terminator_text(cfg, 5) == "@p bra $L__t_b0;");
    }
    for (BlockId b = 0; b < cfg.blocks.size(); ++b) {
        std::vector<CfgEdge> expected = transfer_edges(transfer_of(cfg, b), b, cfg.exit());
        std::vector<CfgEdge> got;
        for (const CfgEdge& e : cfg.edges)
            if (e.from == b) got.push_back(e);
        REQUIRE(got.size() == expected.size());
        for (size_t i = 0; i < got.size(); ++i) {
            CHECK(got[i].to == expected[i].to);
            CHECK(got[i].kind == expected[i].kind);
        }
    }
    for (size_t i = 1; i < cfg.edges.size(); ++i)
        CHECK(cfg.edges[i - 1].from <= cfg.edges[i].from);
    check_round_trip(m, cfg);
}

TEST_CASE("control edit: a brx.idx and its branch-target table") {
    Module m = module_of(R"(
    .reg .b32 i, r;
    .reg .pred p;
    ld.param.u32 i, [n];
    setp.eq.u32 p, i, 7;
    $T: .branchtargets $X, $Y, $X;
    brx.idx i, $T;
$X:
    add.u32 r, i, 1;
    ret;
$Y:
    add.u32 r, i, 2;
    ret;
$Z:
    add.u32 r, i, 3;
    ret;
)");
    Cfg cfg = build_cfg(kernel(m));
    const FreshLabel fresh = counter();
    const Transfer read = transfer_of(cfg, 0);
    REQUIRE(read.kind == Transfer::Kind::Switch);
    CHECK(read.cases == std::vector<BlockId>{1, 2, 1});
    CHECK(read.successors() == std::vector<BlockId>{1, 2});

    SECTION("the same cases keep their table") {
        set_transfer(cfg, 0, read, fresh);
        CHECK(terminator_text(cfg, 0) == "brx.idx i, $T;");
    }
    SECTION("new cases get a fresh table; repeats stay, edges do not repeat") {
        Transfer t = read;
        t.retarget(1, 3);
        t.uniform = true;
        set_transfer(cfg, 0, t, fresh);
        CHECK(terminator_text(cfg, 0) == "brx.idx.uni i, $L__t_t0;");
        CHECK(transfer_of(cfg, 0).cases == std::vector<BlockId>{3, 2, 3});
        size_t indirect = 0;
        for (const CfgEdge& e : cfg.edges)
            indirect += e.from == 0 && e.kind == EdgeKind::Indirect;
        CHECK(indirect == 2);
    }
    SECTION("a guarded switch falls through where its guard fails") {
        Transfer t = Transfer::switch_on(read.index, {3, 2});
        t.guard = Guard{"p", true};
        t.next = 1;
        set_transfer(cfg, 0, t, fresh);
        CHECK(terminator_text(cfg, 0) == "@!p brx.idx i, $L__t_t0;");
        CHECK(transfer_of(cfg, 0) == t);
    }
    check_round_trip(m, cfg);
}

TEST_CASE("control edit: a transfer naming a block the CFG lacks is an internal error") {
    Module m = module_of(kBody);
    Cfg cfg = build_cfg(kernel(m));
    CHECK_THROWS_AS(set_transfer(cfg, 1, Transfer::jump(cfg.exit() + 1), counter()),
                    cfr::InternalError);
    CHECK_THROWS_AS(set_transfer(cfg, 1, Transfer::switch_on(Operand{}, {}), counter()),
                    cfr::InternalError);
}
