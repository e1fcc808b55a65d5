// The PTX linker: an nvcc -rdc pair linked into one module that ptxas assembles as a whole
// program, symbol resolution and its errors, internal names that clash, weak and system symbols.
#include "ptx/link.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"

#include <catch2/catch.hpp>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using namespace cfr::ptx;

namespace {

std::string read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

Module rdc_input(const char* name) {
    const fs::path path = fs::path(CFRJIT_SOURCE_DIR) / "tests/ptx/data/link" / name;
    return parse(read_text(path), path.string());
}

std::vector<LinkInput> rdc_pair() {
    std::vector<LinkInput> inputs;
    inputs.push_back({"kernels.ptx", rdc_input("kernels.ptx")});
    inputs.push_back({"helpers.ptx", rdc_input("helpers.ptx")});
    return inputs;
}

// ptxas's verdict on `text` as a whole program, with everything it printed (warnings included).
std::pair<bool, std::string> ptxas(const std::string& text, const std::string& arch) {
    const fs::path file = fs::temp_directory_path() /
                          ("cfrjit_link_" + std::to_string(getpid()) + "_" + arch + ".ptx");
    std::ofstream(file, std::ios::binary) << text;
    std::string cmd = CFRJIT_PTXAS;
    cmd += " -arch=" + arch + " " + file.string() + " -o /dev/null 2>&1";
    std::string output;
    FILE* pipe = popen(cmd.c_str(), "r");
    char buffer[512];
    while (pipe && fgets(buffer, sizeof buffer, pipe))
        output += buffer;
    const bool ok = pipe && pclose(pipe) == 0;
    fs::remove(file);
    return {ok, output};
}

// Runs of blanks as one space: the printer's tabs do not matter here.
std::string squeeze(const std::string& text) {
    std::string out;
    for (char c : text) {
        const bool blank = c == ' ' || c == '\t';
        if (!blank || out.empty() || out.back() != ' ') out += blank ? ' ' : c;
    }
    return out;
}

size_t count(const std::string& printed, const std::string& pattern) {
    const std::string text = squeeze(printed), what = squeeze(pattern);
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

const Function* function_named(const Module& m, std::string_view name) {
    for (const TopLevel& item : m.items)
        if (const auto* f = std::get_if<Function>(&item); f && f->name == name) return f;
    return nullptr;
}

Module module_of(const std::string& body) {
    return parse(".version 8.0\n.target sm_75\n.address_size 64\n" + body);
}

} // namespace

TEST_CASE("link: an nvcc -rdc pair becomes one module ptxas assembles as a whole program") {
    const Module linked = link_modules(rdc_pair());
    const std::string text = print(linked);
    INFO(text);
    CHECK(linked.target == std::vector<std::string>{"sm_75"});
    CHECK(linked.address_size == 64u);
    // One definition each; the extern declarations of the helper and the variable are gone.
    CHECK(count(text, ".visible .global .align 4 .u32 dev_counter;") == 1);
    CHECK(count(text, "extern .global") == 0);
    CHECK(count(text, ".extern .func") == 1);
    CHECK(count(text, ") vprintf(") == 1);
    const Function* helper = function_named(linked, "_Z6helperi");
    REQUIRE(helper);
    CHECK_FALSE(helper->body.has_value()); // the prototype comes first, the definition later
    // Both printf strings stay, under different names.
    CHECK(count(text, ".global .align 1 .b8 $str[17]") == 1);
    CHECK(count(text, ".global .align 1 .b8 $str$1[20]") == 1);
    CHECK(count(text, "mov.u64 \t%rd4, $str$1;") == 1);
    CHECK(bool(parse(text) == linked));

    if (std::string(CFRJIT_PTXAS).empty()) return;
    const auto [ok, output] = ptxas(text, "sm_75");
    INFO(output);
    CHECK(ok);
    CHECK(output.empty()); // not even a warning
    CHECK(ptxas(text, "sm_90").first);
}

TEST_CASE("link: an unresolved reference names the symbol and the input") {
    std::vector<LinkInput> inputs;
    inputs.push_back({"kernels.ptx", rdc_input("kernels.ptx")});
    CHECK_THROWS_WITH(link_modules(std::move(inputs)),
                      Catch::Contains("unresolved reference to '_Z6helperi' in kernels.ptx") &&
                          Catch::Contains("unresolved reference to 'dev_counter' in kernels.ptx"));
}

TEST_CASE("link: a duplicate definition names both inputs") {
    std::vector<LinkInput> inputs;
    inputs.push_back({"first.ptx", rdc_input("helpers.ptx")});
    inputs.push_back({"second.ptx", rdc_input("helpers.ptx")});
    CHECK_THROWS_WITH(link_modules(std::move(inputs)),
                      Catch::Contains("duplicate definition of '_Z6helperi' in first.ptx and "
                                      "second.ptx") &&
                          Catch::Contains("duplicate definition of 'dev_counter'"));
}

TEST_CASE("link: internal functions and variables of the same name stay apart") {
    const std::string shared = R"(
.global .align 4 .u32 table[2] = {1, 2};
.func (.param .b32 r) twice(.param .b32 x)
{
    .reg .b32 %r<3>;
    ld.param.u32 %r1, [x];
    ld.global.u32 %r2, [table];
    add.s32 %r1, %r1, %r2;
    st.param.b32 [r], %r1;
    ret;
}
)";
    auto entry = [](const std::string& name) {
        return ".visible .entry " + name + R"((.param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<3>;
    .reg .b32 table;
    ld.param.u64 %rd1, [out];
    mov.u32 table, 5;
    {
    .param .b32 p;
    st.param.b32 [p], table;
    .param .b32 r;
    call.uni (r), twice, (p);
    ld.param.b32 %r2, [r];
    }
    st.global.u32 [%rd1], %r2;
    ret;
}
)";
    };
    std::vector<LinkInput> inputs;
    inputs.push_back({"a", module_of(shared + entry("ka"))});
    inputs.push_back({"b", module_of(shared + entry("kb"))});
    const Module linked = link_modules(std::move(inputs));
    const std::string text = print(linked);
    INFO(text);
    CHECK(function_named(linked, "twice"));
    CHECK(function_named(linked, "twice$1"));
    CHECK(count(text, "table$1[2]") == 1);
    CHECK(count(text, "call.uni (r), twice$1, (p);") == 1);
    CHECK(count(text, "ld.global.u32 %r2, [table$1];") == 1);
    CHECK(count(text, "mov.u32 table, 5;") == 2); // a local register of that name is no symbol
    if (!std::string(CFRJIT_PTXAS).empty()) CHECK(ptxas(text, "sm_75").first);
}

TEST_CASE("link: weak definitions keep one, a visible one wins, system functions stay extern") {
    const std::string weak = R"(
.extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);
.extern .shared .align 16 .b8 dynamic_smem[];
.weak .func (.param .b32 r) pick(.param .b32 x)
{
    .reg .b32 %r<2>;
    ld.param.u32 %r1, [x];
    st.param.b32 [r], %r1;
    ret;
}
)";
    const std::string visible = R"(
.visible .func (.param .b32 r) pick(.param .b32 x)
{
    .reg .b32 %r<2>;
    mov.u32 %r1, 7;
    st.param.b32 [r], %r1;
    ret;
}
)";
    std::vector<LinkInput> inputs;
    inputs.push_back({"w1", module_of(weak)});
    inputs.push_back({"w2", module_of(weak)});
    Module linked = link_modules(std::move(inputs));
    std::string text = print(linked);
    CHECK(count(text, ".weak .func") == 1);
    CHECK(count(text, ") pick(") == 1);
    CHECK(count(text, "vprintf") == 1);
    CHECK(count(text, "dynamic_smem") == 1);

    inputs.clear();
    inputs.push_back({"w", module_of(weak)});
    inputs.push_back({"v", module_of(visible)});
    linked = link_modules(std::move(inputs));
    text = print(linked);
    INFO(text);
    const Function* pick = function_named(linked, "pick");
    REQUIRE(pick);
    CHECK_FALSE(
        pick->body.has_value()); // the weak definition became a prototype of the visible one
    CHECK(count(text, "mov.u32 %r1, 7;") == 1);
    CHECK(count(text, "ld.param.u32 %r1, [x];") == 0);
    if (!std::string(CFRJIT_PTXAS).empty()) CHECK(ptxas(text, "sm_75").first);
}

TEST_CASE("link: the newest .version and .target win; address sizes must agree") {
    std::vector<LinkInput> inputs;
    inputs.push_back({"old", parse(".version 7.0\n.target sm_75\n.address_size 64\n")});
    inputs.push_back({"new", parse(".version 8.3\n.target sm_90\n.address_size 64\n")});
    const Module linked = link_modules(std::move(inputs));
    CHECK(linked.version == "8.3");
    CHECK(linked.target == std::vector<std::string>{"sm_90"});

    inputs.clear();
    inputs.push_back({"a64", parse(".version 7.0\n.target sm_75\n.address_size 64\n")});
    inputs.push_back({"a32", parse(".version 7.0\n.target sm_75\n.address_size 32\n")});
    CHECK_THROWS_WITH(link_modules(std::move(inputs)), Catch::Contains("a32"));
    CHECK_THROWS_AS(link_modules({}), LinkError);
}

TEST_CASE("link: .file numbers are renumbered, .loc follows") {
    const std::string with_lines = R"(
.file 1 "x.cu"
.visible .entry k%s()
{
    .loc 1 3 0
    ret;
}
)";
    auto make = [&](const char* suffix) {
        std::string text = with_lines;
        text.replace(text.find("%s"), 2, suffix);
        return module_of(text);
    };
    std::vector<LinkInput> inputs;
    inputs.push_back({"one", make("1")});
    inputs.push_back({"two", make("2")});
    const std::string text = print(link_modules(std::move(inputs)));
    INFO(text);
    CHECK(count(text, ".file 1 \"x.cu\"") == 1);
    CHECK(count(text, ".file 2 \"x.cu\"") == 1);
    CHECK(count(text, ".loc 2 3 0") == 1);
}

TEST_CASE("link: a library input is linked only when something references what it defines") {
    const std::string user = R"(
.extern .func (.param .b32 r) helper();
.visible .entry k()
{
    .reg .b32 %r<2>;
    {
    .param .b32 r;
    call.uni (r), helper, ();
    ld.param.b32 %r1, [r];
    }
    ret;
}
)";
    const std::string provider = R"(
.extern .func (.param .b32 r) deeper();
.visible .func (.param .b32 r) helper()
{
    .reg .b32 %r<2>;
    {
    .param .b32 r2;
    call.uni (r2), deeper, ();
    ld.param.b32 %r1, [r2];
    }
    st.param.b32 [r], %r1;
    ret;
}
)";
    const std::string deepest = R"(
.visible .func (.param .b32 r) deeper()
{
    .reg .b32 %r<2>;
    mov.u32 %r1, 3;
    st.param.b32 [r], %r1;
    ret;
}
)";
    // Like libcudadevrt: references the JIT's own system calls, used by no one here.
    const std::string unused = R"(
.extern .func (.param .b32 r) __cuda_syscall_something();
.visible .global .align 4 .u32 unused_value;
)";
    std::vector<LinkInput> inputs;
    inputs.push_back({"user", module_of(user)});
    inputs.push_back({"unused", module_of(unused), true});
    inputs.push_back({"deepest", module_of(deepest), true});
    inputs.push_back({"provider", module_of(provider), true});
    const Module linked = link_modules(std::move(inputs));
    const std::string text = print(linked);
    INFO(text);
    CHECK(count(text, "__cuda_syscall_something") == 0);
    CHECK(count(text, "unused_value") == 0);
    CHECK(count(text, "mov.u32 %r1, 3;") == 1); // pulled in by the library that was pulled in
    CHECK(function_named(linked, "helper"));
    if (!std::string(CFRJIT_PTXAS).empty()) CHECK(ptxas(text, "sm_75").first);

    inputs.clear();
    inputs.push_back({"user", module_of(user)});
    inputs.push_back({"unused", module_of(unused), true});
    CHECK_THROWS_WITH(link_modules(std::move(inputs)),
                      Catch::Contains("unresolved reference to 'helper' in user") &&
                          !Catch::Contains("__cuda_syscall_something"));
}
