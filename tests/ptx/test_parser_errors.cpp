// Parser error tests: malformed input gives a ParseError at the offending token, never a crash.
#include "ptx/parser.hpp"

#include <catch2/catch.hpp>

using namespace cfr::ptx;

namespace {

struct Case {
    const char* name;
    std::string text;
    uint32_t line;
    uint32_t col;
    const char* fragment;
};

const std::string hdr = ".version 8.0\n.target sm_90\n.address_size 64\n"; // 3 lines

std::string fn(const std::string& body) {
    return hdr + ".entry k()\n{\n" + body;
}

} // namespace

TEST_CASE("malformed input is reported at the offending token", "[parser][errors]") {
    const std::vector<Case> cases = {
        {"missing semicolon", fn("\tmov.u32 %r1, 1\n\tret;\n}\n"), 7, 2,
         "expected ',' or ';' after operand of 'mov', found 'ret'"},
        {"unterminated string", hdr + ".file 1 \"abc\n", 4, 9, "unterminated string"},
        {"unterminated comment", fn("\tret; /* never closed\n"), 6, 7, "unterminated comment"},
        {"unterminated brace", fn("\tret;\n"), 7, 1, "expected '}' to close the '{' at 5:1"},
        {"garbage at top level", hdr + "hello world\n", 4, 1,
         "expected a directive, declaration or function, found 'hello'"},
        {"bad character", fn("\tmov.u32 %r1, #3;\n}\n"), 6, 15, "unexpected character '#'"},
        {"NUL byte", fn(std::string("\tret;\n\t\0;\n}\n", 11)), 7, 2, "byte 0x00"},
        {"huge address offset", fn("\tld.u32 %r1, [%rd1+99999999999999999999];\n}\n"), 6, 20,
         "out of range"},
        {"huge alignment", hdr + ".global .align 4294967296 .u32 x;\n", 4, 16, "out of range"},
        {"bad float literal", fn("\tmov.f32 %f1, 0f3F80;\n}\n"), 6, 15, "8 hexadecimal digits"},
        {"bad hex literal", fn("\tmov.u32 %r1, 0xg1;\n}\n"), 6, 15, "malformed hexadecimal"},
        {"missing operand", fn("\tadd.u32 %r1, , %r2;\n}\n"), 6, 15,
         "expected an operand, found ','"},
        {"unclosed address", fn("\tld.u32 %r1, [%rd1;\n}\n"), 6, 19,
         "expected ']' to close the address, found ';'"},
        {"unclosed vector", fn("\tmov.b64 {%r1, %r2, %rd1;\n}\n"), 6, 25,
         "expected '}' to close the vector"},
        {"truncated file", hdr + ".visible .entry k(.param .u64 p", 4, 32,
         "expected ',' or ')' in parameter list, found end of file"},
        {"declaration without type", fn("\t.reg %r<4>;\n}\n"), 6, 7,
         "expected a type in declaration, found '%r'"},
        {"directive without semicolon", fn("\t.pragma \"nounroll\"\n}\n"), 7, 1,
         "expected ';' after .pragma, found '}'"},
        {"unterminated section", hdr + ".section .debug_info\n{\n.b8 1\n", 5, 1,
         "unterminated '{'"},
        {"lonely dot", fn("\tmov. %r1;\n}\n"), 6, 5, "expected a name after '.'"},
        {"bad guard", fn("\t@ 3 bra L;\n}\n"), 6, 4, "expected a predicate after '@', found '3'"},
        {"linkage without declaration", hdr + ".visible foo;\n", 4, 10,
         "expected a function or variable declaration after '.visible'"},
        {"unbalanced initializer", hdr + ".global .u32 x[2] = {1, 2}};\n", 4, 27, "unbalanced '}'"},
        {"bad register count", fn("\t.reg .b32 %r<x>;\n}\n"), 6, 15, "expected a register count"},
        {"lonely percent", fn("\tmov.u32 %, 1;\n}\n"), 6, 10, "expected an operand, found '%'"},
    };
    for (const auto& c : cases) {
        INFO(c.name);
        try {
            parse(c.text, "bad.ptx");
            FAIL("no error for: " << c.name);
        } catch (const ParseError& e) {
            INFO(e.what());
            CHECK(e.file() == "bad.ptx");
            CHECK(e.line() == c.line);
            CHECK(e.col() == c.col);
            CHECK_THAT(e.what(), Catch::Contains(c.fragment));
            CHECK_THAT(e.what(), Catch::StartsWith("bad.ptx:" + std::to_string(c.line) + ":" +
                                                   std::to_string(c.col) + ": error: "));
        }
    }
}

TEST_CASE("deep nesting is refused with a clear error", "[parser][errors]") {
    std::string scopes = fn(std::string(100000, '{'));
    CHECK_THROWS_WITH(parse(scopes), Catch::Contains("nested too deeply"));
    std::string brackets = fn("\tld.u32 %r1, " + std::string(100000, '['));
    CHECK_THROWS_WITH(parse(brackets), Catch::Contains("nested too deeply"));
    std::string vectors = fn("\tmov.b32 " + std::string(100000, '{'));
    CHECK_THROWS_WITH(parse(vectors), Catch::Contains("nested too deeply"));
    std::string init = hdr + ".global .u32 x = " + std::string(100000, '{') + "1";
    CHECK_THROWS_AS(parse(init), ParseError);
}

TEST_CASE("every truncation of a valid module is parsed or rejected cleanly", "[parser][errors]") {
    std::string text = fn(".reg .b32 %r<3>;\n\tld.global.v2.u32 {%r1, %r2}, [%rd1+8];\n"
                          "$L1:\n\t@!%p1 bra $L1;\n\t{\n\t.param .b32 p;\n\t}\n\tret;\n}\n"
                          ".section .debug_abbrev\n{\n.b8 1\n}\n");
    for (size_t n = 0; n <= text.size(); ++n) {
        try {
            parse(std::string_view(text).substr(0, n));
        } catch (const ParseError&) {
        }
    }
    SUCCEED();
}
