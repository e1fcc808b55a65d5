// Parser unit tests: statements, declarations, operands and identifier resolution.
#include "ptx/lexer.hpp"
#include "ptx/parser.hpp"

#include <catch2/catch.hpp>

using namespace cfr::ptx;
using Kind = Operand::Kind;

namespace {

const char* header = ".version 8.0\n.target sm_90\n.address_size 64\n";

Function parse_function(const std::string& body, const std::string& params = "") {
    Module m =
        parse(std::string(header) + ".visible .entry k(" + params + ")\n{\n" + body + "\n}\n");
    REQUIRE(m.items.size() == 1);
    return std::get<Function>(m.items[0]);
}

const Instruction& instruction_at(const Function& f, size_t i) {
    return std::get<Instruction>(f.body->at(i));
}

} // namespace

TEST_CASE("module header fields", "[parser]") {
    Module m = parse(".version 9.0\n.target sm_120a, debug\n.address_size 32\n");
    CHECK(m.version == "9.0");
    CHECK(m.target == std::vector<std::string>{"sm_120a", "debug"});
    CHECK(m.address_size == 32u);
    CHECK(m.items.empty());
}

TEST_CASE("instruction with guard, modifiers and operands", "[parser]") {
    Function f = parse_function(".reg .pred %p<2>;\n.reg .b32 %r<4>;\n"
                                "@!%p1 add.rn.ftz.f32 %r1, %r2, -0x10;");
    const auto& ins = instruction_at(f, 2);
    REQUIRE(ins.guard);
    CHECK(ins.guard->predicate == "%p1");
    CHECK(ins.guard->negated);
    CHECK(ins.opcode == cfr::ptx::Opcode::Add);
    CHECK(ins.modifiers ==
          cfr::ptx::Words{cfr::ptx::Rounding::Rn, cfr::ptx::Modifier::Ftz, cfr::ptx::Type::F32});
    CHECK(ins.type() == cfr::ptx::Type::F32);
    REQUIRE(ins.operands.size() == 3);
    CHECK(ins.operands[0].kind == Kind::Register);
    CHECK(ins.operands[2].kind == Kind::Immediate);
    CHECK(ins.operands[2].text == "-0x10");
    CHECK(ins.has(cfr::ptx::Modifier::Ftz));
    CHECK_FALSE(ins.has(cfr::ptx::Rounding::Rz));
    CHECK(ins.loc.line == 8);
}

TEST_CASE("an opcode's instruction reserves as many operands as the opcode's last one had",
          "[parser]") {
    const Module m = parse(std::string(header) + ".visible .entry k()\n{\n"
                                                 ".reg .b32 %r<4>;\n.reg .pred %p<3>;\n"
                                                 "add.s32 %r1, %r2, %r3;\n"
                                                 "add.s32 %r1, %r1, 1;\n"
                                                 "setp.eq.s32 %p1, %r1, 0;\n"
                                                 "setp.eq.and.s32 %p2, %r1, 1, %p1;\n"
                                                 "setp.eq.s32 %p1, %r2, 0;\n"
                                                 "ret;\n}\n");
    const auto& body = *std::get<Function>(m.items.at(0)).body; // not copied: copies are exact
    const auto operands = [&](size_t i) -> const OperandList& {
        return std::get<Instruction>(body.at(i)).operands;
    };
    CHECK(operands(3).capacity() == 3); // the second add: as many as the first had
    REQUIRE(operands(5).size() == 4);   // one more than the setp before it: its vector grew
    CHECK(operands(6).size() == 3);
    CHECK(operands(6).capacity() == 4); // as many as the setp before it had
    CHECK(operands(7).capacity() == 0); // ret: none
}

TEST_CASE("register ranges and scoping", "[parser]") {
    Function f = parse_function(".reg .b32 %r<10>;\n"
                                "mov.u32 %r9, %r10;\n"
                                "{\n.reg .b32 t;\nmov.u32 t, %r09;\n}\n"
                                "mov.u32 t, %r0;");
    const auto& a = instruction_at(f, 1);
    CHECK(a.operands[0].kind == Kind::Register);
    CHECK(a.operands[1].kind == Kind::Symbol); // %r10 is outside %r<10>
    const auto& inner = std::get<Scope>(f.body->at(2));
    const auto& b = std::get<Instruction>(inner.statements.at(1));
    CHECK(b.operands[0].kind == Kind::Register);
    CHECK(b.operands[1].kind == Kind::Symbol); // leading zero: not %r9
    const auto& c = instruction_at(f, 3);
    CHECK(c.operands[0].kind == Kind::Symbol); // t went out of scope
    CHECK(c.operands[1].kind == Kind::Register);
}

TEST_CASE("registers are numbered per function in declaration order, a range taking one number "
          "per register and a nested scope its own",
          "[parser]") {
    Module m =
        parse(std::string(header) + ".func (.reg .b32 out) f(.reg .b32 x, .param .u32 n)\n{\n"
                                    ".reg .pred %p<2>;\n"
                                    ".reg .b32 %r<3>;\n"
                                    ".reg .b32 t;\n"
                                    "@%p1 add.u32 %r2, x, out;\n"
                                    "{\n.reg .b32 t;\n.reg .pred %p<1>;\n@!%p0 mov.u32 t, %r0;\n}\n"
                                    "mov.u32 t, {%r1, n};\n"
                                    "ret;\n}\n"
                                    ".entry k()\n{\n.reg .b32 %r<2>;\nmov.u32 %r1, 0;\nret;\n}\n");
    const auto& f = std::get<Function>(m.items[0]);
    // out 0, x 1 (n is a .param, not a register), %p0..%p1 2..3, %r0..%r2 4..6, t 7; the scope's
    // t 8 and %p0 9.
    CHECK(f.register_count == 10);
    CHECK(f.returns[0].number == 0);
    CHECK(f.params[0].number == 1);
    CHECK(f.params[1].number == kNoRegister);
    CHECK(std::get<Declaration>(f.body->at(1))->number == 4);
    const auto& add = instruction_at(f, 3);
    CHECK(add.guard->reg == 3);
    CHECK(add.operands[0].reg == 6);
    CHECK(add.operands[1].reg == 1);
    CHECK(add.operands[2].reg == 0);
    const auto& inner = std::get<Scope>(f.body->at(4));
    const auto& shadowed = std::get<Instruction>(inner.statements.at(2));
    CHECK(shadowed.guard->reg == 9);      // the scope's %p0
    CHECK(shadowed.operands[0].reg == 8); // the scope's t
    CHECK(shadowed.operands[1].reg == 4); // the function's %r0
    const auto& after = instruction_at(f, 5);
    CHECK(after.operands[0].reg == 7); // the function's t again
    CHECK(after.operands[1].elements[0].reg == 5);
    CHECK(after.operands[1].elements[1].kind == Kind::Symbol);
    CHECK(after.operands[1].elements[1].reg == kNoRegister);
    // Each function numbers from 0.
    const auto& k = std::get<Function>(m.items[1]);
    CHECK(k.register_count == 2);
    CHECK(instruction_at(k, 1).operands[0].reg == 1);
}

TEST_CASE("a function declaring more registers than the analyses keep slots for is refused with "
          "its name",
          "[parser]") {
    const auto text = std::string(header) +
                      ".entry k()\n{\n.reg .b32 %r<16777216>;\n.reg .b32 %big<2>;\nret;\n}\n";
    CHECK_THROWS_WITH(parse(text),
                      Catch::Contains("more than 16777216 registers") && Catch::Contains("%big"));
}

TEST_CASE("register ranges: prefixes longer than eight characters, ending in a digit, or "
          "prefixing one another",
          "[parser]") {
    Function f = parse_function(".reg .b32 %long_prefix_a<3>;\n"
                                ".reg .b32 %v2<4>;\n"
                                ".reg .b64 %rd<2>;\n"
                                ".reg .b32 %r<1>;\n"
                                "mov.u32 %long_prefix_a2, %long_prefix_b1;\n"
                                "mov.u32 %v23, %v24;\n"
                                "mov.u32 %v21, %v2;\n"
                                "mov.u32 %rd1, %rd2;\n"
                                "mov.u32 %r0, %r1;");
    const auto kinds = [&](size_t at) {
        const auto& in = instruction_at(f, at);
        return std::pair{in.operands[0].kind, in.operands[1].kind};
    };
    CHECK(kinds(4) == std::pair{Kind::Register, Kind::Symbol}); // same length, other text
    CHECK(kinds(5) == std::pair{Kind::Register, Kind::Symbol}); // %v2<4>: %v20 .. %v23
    CHECK(kinds(6) == std::pair{Kind::Register, Kind::Symbol}); // the prefix alone is none
    CHECK(kinds(7) == std::pair{Kind::Register, Kind::Symbol}); // %rd<2>, not %r<1> and "d1"
    CHECK(kinds(8) == std::pair{Kind::Register, Kind::Symbol});
}

TEST_CASE("special registers keep their component", "[parser]") {
    Function f = parse_function(".reg .b32 %r<9>;\n"
                                "mov.u32 %r1, %tid.x;\nmov.u32 %r2, %nctaid.z;\n"
                                "mov.u32 %r3, %envreg31;\nmov.u32 %r4, %pm7;\n"
                                "mov.u32 %r5, %lanemask_ge;\nmov.u32 %r6, %envreg32;\n"
                                "mov.u32 %r7, %cluster_ctaid.y;\nmov.u32 %r8, WARP_SZ;");
    CHECK(instruction_at(f, 1).operands[1].kind == Kind::SpecialRegister);
    CHECK(instruction_at(f, 1).operands[1].text == "%tid.x");
    CHECK(instruction_at(f, 2).operands[1].text == "%nctaid.z");
    CHECK(instruction_at(f, 3).operands[1].kind == Kind::SpecialRegister);
    CHECK(instruction_at(f, 4).operands[1].kind == Kind::SpecialRegister);
    CHECK(instruction_at(f, 5).operands[1].kind == Kind::SpecialRegister);
    CHECK(instruction_at(f, 6).operands[1].kind == Kind::Symbol);
    CHECK(instruction_at(f, 7).operands[1].text == "%cluster_ctaid.y");
    CHECK(instruction_at(f, 8).operands[1].kind == Kind::Immediate);
}

TEST_CASE("labels are resolved from definitions and branch targets", "[parser]") {
    Function f = parse_function(".reg .pred p;\n"
                                "@p bra.uni L_later;\n"
                                "bra NOT_DEFINED;\n"
                                "L_later:\n"
                                "mov.u64 %rd1, L_later;\n"
                                "mov.u64 %rd1, some_global;\n"
                                "ts: .branchtargets L_later;\n"
                                "brx.idx %r1, ts;");
    CHECK(instruction_at(f, 1).operands[0].kind == Kind::Label);
    CHECK(instruction_at(f, 1).control() == ControlKind::Branch);
    CHECK(instruction_at(f, 2).operands[0].kind == Kind::Label);
    CHECK(std::get<Label>(f.body->at(3)).name == "L_later");
    CHECK(instruction_at(f, 4).operands[1].kind == Kind::Label);
    CHECK(instruction_at(f, 5).operands[1].kind == Kind::Symbol);
    CHECK(std::get<Label>(f.body->at(6)).name == "ts");
    const auto& bt = std::get<Directive>(f.body->at(7));
    CHECK(bt.name == ".branchtargets");
    CHECK(bt.text == "L_later");
    const auto& brx = instruction_at(f, 8);
    CHECK(brx.control() == ControlKind::IndirectBranch);
    CHECK(brx.operands[1].kind == Kind::Label);
    CHECK(brx.operands[0].kind == Kind::Symbol); // %r1 never declared
}

TEST_CASE("compound operands", "[parser]") {
    Function f = parse_function(".reg .b32 %r<5>;\n.reg .b64 %rd<3>;\n.reg .pred %p<3>;\n"
                                "ld.global.v4.u32 {%r1, _, %r2, %r3}, [%rd1+-16];\n"
                                "st.shared.u32 [buf+8], %r1;\n"
                                "setp.eq.s32 %p1|%p2, %r1, 0;\n"
                                "call.uni (retval0), fn, (param0, param1);\n"
                                "call.uni fn2, ();\n"
                                "tex.2d.v4.f32.s32 {%r1, %r2, %r3, %r4}, [t, {%r1, %r2}];");
    const auto& ld = instruction_at(f, 3);
    REQUIRE(ld.operands[0].kind == Kind::Vector);
    CHECK(ld.operands[0].elements.size() == 4);
    CHECK(ld.operands[0].elements[1].kind == Kind::Sink);
    CHECK(ld.operands[1].kind == Kind::Address);
    CHECK(ld.operands[1].offset == -16);
    CHECK(ld.operands[1].elements[0].text == "%rd1");
    const auto& st = instruction_at(f, 4);
    CHECK(st.operands[0].offset == 8);
    CHECK(st.operands[0].elements[0].kind == Kind::Symbol);
    const auto& setp = instruction_at(f, 5);
    CHECK(setp.operands[0].kind == Kind::Pair);
    CHECK(setp.operands[0].elements[1].text == "%p2");
    const auto& call = instruction_at(f, 6);
    CHECK(call.control() == ControlKind::Call);
    CHECK(call.operands[0].kind == Kind::List);
    CHECK(call.operands[1].kind == Kind::Symbol);
    CHECK(call.operands[2].elements.size() == 2);
    CHECK(instruction_at(f, 7).operands[1].elements.empty());
    const auto& tex = instruction_at(f, 8);
    CHECK(tex.operands[1].elements.size() == 2);
    CHECK(tex.operands[1].elements[1].kind == Kind::Vector);
}

TEST_CASE("negated predicate operands", "[parser]") {
    Function f = parse_function(".reg .pred %p<4>;\nand.pred %p1, %p2, !%p3;");
    const auto& op = instruction_at(f, 1).operands[2];
    CHECK(op.negated);
    CHECK(op.kind == Kind::Register);
}

TEST_CASE("function headers: parameters, returns, performance directives", "[parser]") {
    Module m =
        parse(std::string(header) + ".visible .entry k(.param .u64 .ptr .global .align 8 p, "
                                    ".param .align 16 .b8 blob[24], .param .u32 n)\n"
                                    ".maxntid 128, 1, 1\n.minnctapersm 2\n{\nret;\n}\n"
                                    ".extern .func (.param .b32 r) ext(.param .b64 a);\n"
                                    ".func helper(.reg .b32 x)\n{\nadd.u32 x, x, 1;\nret;\n}\n");
    REQUIRE(m.items.size() == 3);
    const auto& k = std::get<Function>(m.items[0]);
    CHECK(k.is_entry);
    CHECK(k.linkage == std::vector<std::string>{".visible"});
    REQUIRE(k.params.size() == 3);
    CHECK(k.params[0].ptr_space == StateSpace::Global);
    CHECK(k.params[0].ptr_align == 8u);
    CHECK(k.params[0].type == Word(Type::U64));
    CHECK(k.params[1].align == 16u);
    CHECK(k.params[1].dims == std::vector<std::optional<uint64_t>>{24});
    REQUIRE(k.performance.size() == 2);
    CHECK(k.performance[0].name == ".maxntid");
    CHECK(k.performance[0].text == "128, 1, 1");
    const auto& ext = std::get<Function>(m.items[1]);
    CHECK_FALSE(ext.body.has_value());
    CHECK(ext.returns.size() == 1);
    CHECK(ext.returns[0].name == "r");
    const auto& helper = std::get<Function>(m.items[2]);
    CHECK(std::get<Instruction>(helper.body->at(0)).operands[0].kind == Kind::Register);
}

TEST_CASE("module variables with initializers and attributes", "[parser]") {
    Module m =
        parse(std::string(header) + ".global .align 4 .u32 lut[2][3] = {{1, 2, 3}, {4,5,6}};\n"
                                    ".global .align 8 .u64 p = generic(lut)+4, q;\n"
                                    ".extern .shared .align 16 .b8 smem[];\n"
                                    ".visible .global .attribute(.managed) .align 4 .u32 flag;\n"
                                    ".global .texref t;\n.weak .global .u32 w = 0;\n"
                                    ".global .v4 .f32 vec;\n");
    REQUIRE(m.items.size() == 8);
    const auto& lut = std::get<Variable>(m.items[0]);
    CHECK(lut.dims == std::vector<std::optional<uint64_t>>{2, 3});
    CHECK(lut.initializer == "{{1, 2, 3}, {4, 5, 6}}");
    CHECK(std::get<Variable>(m.items[1]).initializer == "generic(lut)+4");
    CHECK(std::get<Variable>(m.items[2]).name == "q");
    const auto& smem = std::get<Variable>(m.items[3]);
    CHECK(smem.linkage == std::vector<std::string>{".extern"});
    CHECK(smem.dims == std::vector<std::optional<uint64_t>>{std::nullopt});
    CHECK(std::get<Variable>(m.items[4]).attributes ==
          std::vector<std::string>{".attribute(.managed)"});
    CHECK(std::get<Variable>(m.items[5]).type.spelling() == ".texref");
    CHECK(std::get<Variable>(m.items[7]).vector == 4);
}

TEST_CASE("directives: .loc, .file, .pragma and debug sections", "[parser]") {
    Module m =
        parse(std::string(header) +
              ".file 1 \"/tmp/a.cu\", 1700000000, 1234\n"
              ".entry k()\n{\n.loc 1 5 3, function_name $L__info_string0, inlined_at 1 9 2\n"
              ".pragma \"nounroll\";\nret;\n}\n"
              ".section .debug_info\n{\n.b32 10 // length\n.b8 2\n\n.b64 $L__func_begin0\n}\n"
              ".section .debug_macinfo { }\n");
    REQUIRE(m.items.size() == 4);
    const auto& file = std::get<Directive>(m.items[0]);
    CHECK(file.name == ".file");
    CHECK(file.text == "1 \"/tmp/a.cu\", 1700000000, 1234");
    const auto& k = std::get<Function>(m.items[1]);
    const auto& loc = std::get<Directive>(k.body->at(0));
    CHECK(loc.text == "1 5 3, function_name $L__info_string0, inlined_at 1 9 2");
    CHECK(std::get<Directive>(k.body->at(1)).text == "\"nounroll\"");
    const auto& sec = std::get<Directive>(m.items[2]);
    CHECK(sec.name == ".section");
    CHECK(sec.text == ".debug_info\n{\n.b32 10\n.b8 2\n.b64 $L__func_begin0\n}");
    CHECK(std::get<Directive>(m.items[3]).text == ".debug_macinfo\n{\n}");
}

TEST_CASE("unknown instructions are kept verbatim", "[parser]") {
    Function f = parse_function(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
        "[%rd1], [%rd2, {%r1, %r2}], [%rd3];\nfrobnicate.xyz.q7 a, b, 3;");
    const auto& cp = instruction_at(f, 0);
    CHECK(cp.opcode == cfr::ptx::Opcode::Cp);
    CHECK(cp.modifiers.back().spelling() == ".mbarrier::complete_tx::bytes");
    CHECK(cp.operands.size() == 3);
    const auto& fz = instruction_at(f, 1);
    CHECK(fz.opcode == cfr::ptx::Opcode::Unknown);
    CHECK(fz.mnemonic() == "frobnicate");
    CHECK(fz.modifiers.size() == 2);
    CHECK(fz.modifiers[1].spelling() == ".q7");
    CHECK(fz.control() == ControlKind::None);
    CHECK(fz.operands.size() == 3);
}

TEST_CASE("control kinds", "[parser]") {
    Function f = parse_function("bra L;\nL:\ncall f;\nret;\nexit;\ntrap;\nbrx.idx %r1, L;");
    CHECK(instruction_at(f, 0).control() == ControlKind::Branch);
    CHECK(instruction_at(f, 2).control() == ControlKind::Call);
    CHECK(instruction_at(f, 3).control() == ControlKind::Return);
    CHECK(instruction_at(f, 4).control() == ControlKind::Exit);
    CHECK(instruction_at(f, 5).control() == ControlKind::Trap);
    CHECK(instruction_at(f, 6).control() == ControlKind::IndirectBranch);
}

TEST_CASE("source locations take no part in equality", "[parser]") {
    Module a = parse(std::string(header) + ".entry k()\n{\nret;\n}\n");
    Module b = parse(std::string(header) + "\n\n.entry   k( )  {   ret ; }");
    CHECK(bool(a == b));
}

TEST_CASE("a function body's statements are counted ahead for reserving", "[parser][lexer]") {
    const std::string text = "{ .reg .b32 %r<3>; .reg .pred %p; // a comment; with { braces }\n"
                             "L: ld.shared::cta.u32 %r1, [x]; /* ; */ { .pragma \"no}unroll;\"; }\n"
                             "@%p bra L; }";
    const cfr::ptx::Lexer lexer(text);
    // Two .reg, the label, ld, .pragma (inside the nested scope), bra: '::' and what comments and
    // strings hold do not count.
    CHECK(lexer.statements_in_braces(0) == 6);
    CHECK(cfr::ptx::Lexer("{ mov.u32 %r1, 0;").statements_in_braces(0) == 0);

    // What the count is for: the body is parsed the same with it.
    const auto module = parse(std::string(header) + ".entry k() " + text);
    const auto& body = *std::get<Function>(module.items[0]).body;
    CHECK(body.size() == 6); // the nested scope is one statement
    CHECK(body.capacity() >= body.size());
}
