// The pass manager's function selection (CFRJIT_KERNELS in the shim): unselected functions get no
// unit, keep their bodies byte for byte, and count as code the divergence analysis cannot see.
#include "passes/module_unit.hpp"
#include "passes/pipeline.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"

#include <catch2/catch.hpp>

#include <string>

using cfr::passes::FunctionSelection;
using cfr::passes::parse_pipeline;
using cfr::passes::run_pipeline;
using cfr::passes::VerifyLevel;

namespace {

FunctionSelection only(std::string name) {
    return [name = std::move(name)](const std::string& function) { return function == name; };
}

std::string function_text(const cfr::ptx::Module& module, const std::string& name) {
    for (const auto& item : module.items)
        if (const auto* f = std::get_if<cfr::ptx::Function>(&item); f && f->name == name) {
            cfr::ptx::Module alone;
            alone.items.push_back(*f);
            return cfr::ptx::print(alone);
        }
    return "";
}

// Two kernels with the same uniform branch: uniform-branches changes each one it sees.
const char* kTwoKernels = R"(.version 8.0
.target sm_75
.address_size 64

.visible .entry picked(.param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<3>;
    ld.param.u32 %r1, [n];
    setp.eq.s32 %p1, %r1, 0;
    @%p1 bra A;
    mov.u32 %r2, 1;
A:
    ret;
}

.visible .entry left(.param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<3>;
    ld.param.u32 %r1, [n];
    setp.eq.s32 %p1, %r1, 0;
    @%p1 bra A;
    mov.u32 %r2, 1;
A:
    ret;
}
)";

// The kernel hands a pointer to its thread-private buffer to store_tid, which stores the thread
// index there; the kernel's branch on what it reads back diverges.
const char* kLocalThroughCall = R"(.version 8.0
.target sm_75
.address_size 64

.func store_tid(.param .b64 p)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, %tid.x;
    st.u32 [%rd1], %r1;
    ret;
}

.visible .entry k()
{
    .local .align 4 .b8 buf[4];
    .reg .pred %p<2>;
    .reg .b32 %r<3>;
    .reg .b64 %rd<3>;
    mov.u64 %rd1, buf;
    cvta.local.u64 %rd2, %rd1;
    {
    .param .b64 param0;
    st.param.b64 [param0], %rd2;
    call.uni store_tid, (param0);
    }
    ld.local.u32 %r1, [buf];
    setp.eq.s32 %p1, %r1, 0;
    @%p1 bra A;
    mov.u32 %r2, 1;
A:
    ret;
}
)";

// pick's branch is on its parameter: uniform from `calm`, which passes a kernel parameter, but
// not from `wild`, which passes the thread index.
const char* kCalledFromUnseen = R"(.version 8.0
.target sm_75
.address_size 64

.func (.param .b32 r) pick(.param .b32 x)
{
    .reg .pred %p<2>;
    .reg .b32 %r<3>;
    ld.param.u32 %r1, [x];
    mov.u32 %r2, 0;
    setp.eq.s32 %p1, %r1, 0;
    @%p1 bra B;
    mov.u32 %r2, 1;
B:
    st.param.b32 [r], %r2;
    ret;
}

.visible .entry calm(.param .u32 n)
{
    .reg .b32 %r<3>;
    ld.param.u32 %r1, [n];
    {
    .param .b32 param0;
    st.param.b32 [param0], %r1;
    .param .b32 retval0;
    call.uni (retval0), pick, (param0);
    ld.param.b32 %r2, [retval0];
    }
    ret;
}

.visible .entry wild()
{
    .reg .b32 %r<3>;
    mov.u32 %r1, %tid.x;
    {
    .param .b32 param0;
    st.param.b32 [param0], %r1;
    .param .b32 retval0;
    call.uni (retval0), pick, (param0);
    ld.param.b32 %r2, [retval0];
    }
    ret;
}
)";

} // namespace

TEST_CASE("an unselected function gets no unit and keeps its body byte for byte",
          "[pipeline][selection]") {
    auto module = cfr::ptx::parse(kTwoKernels, "two.ptx");
    const std::string left_before = function_text(module, "left");
    {
        cfr::passes::ModuleUnit unit(module, only("picked"));
        CHECK(unit.find("picked") != nullptr);
        CHECK(unit.find("left") == nullptr);
        CHECK(unit.functions().size() == 1);
        CHECK(unit.skipped().empty());
    }
    const auto reports =
        run_pipeline(module, parse_pipeline("uniform-branches"), VerifyLevel::Full, only("picked"));
    REQUIRE(reports.size() == 1);
    CHECK(reports[0].counters.at("branches marked uniform") == 1);
    CHECK(reports[0].functions_changed == std::vector<std::string>{"picked"});
    CHECK(function_text(module, "picked").find("bra.uni") != std::string::npos);
    CHECK(function_text(module, "left") == left_before);

    // Without a selection both kernels change.
    auto all = cfr::ptx::parse(kTwoKernels, "two.ptx");
    const auto both = run_pipeline(all, parse_pipeline("uniform-branches"));
    CHECK(both.at(0).functions_changed == std::vector<std::string>{"picked", "left"});
    CHECK(function_text(all, "left").find("bra.uni") != std::string::npos);
}

TEST_CASE("a pass that changes nothing lists no function", "[pipeline][selection]") {
    auto module = cfr::ptx::parse(kTwoKernels, "two.ptx");
    const auto reports = run_pipeline(module, parse_pipeline("divergence"));
    CHECK(reports.at(0).functions_changed.empty());
}

TEST_CASE("a selected kernel that hands thread-private memory to an unselected function",
          "[pipeline][selection]") {
    // Seen whole, the analysis follows the divergent store into the buffer.
    auto whole = cfr::ptx::parse(kLocalThroughCall, "local.ptx");
    run_pipeline(whole, parse_pipeline("uniform-branches"));
    CHECK(function_text(whole, "k").find("bra.uni") == std::string::npos);
    // With store_tid left out it is unknown code: it may have stored anything there.
    auto selected = cfr::ptx::parse(kLocalThroughCall, "local.ptx");
    const std::string callee_before = function_text(selected, "store_tid");
    run_pipeline(selected, parse_pipeline("uniform-branches"), VerifyLevel::Full, only("k"));
    CHECK(function_text(selected, "k").find("bra.uni") == std::string::npos);
    CHECK(function_text(selected, "store_tid") == callee_before);
}

TEST_CASE("a selected function called from an unselected kernel gets divergent arguments",
          "[pipeline][selection]") {
    const FunctionSelection pick_and_calm = [](const std::string& f) {
        return f == "pick" || f == "calm";
    };
    auto module = cfr::ptx::parse(kCalledFromUnseen, "calls.ptx");
    const std::string wild_before = function_text(module, "wild");
    run_pipeline(module, parse_pipeline("uniform-branches"), VerifyLevel::Full, pick_and_calm);
    CHECK(function_text(module, "pick").find("bra.uni") == std::string::npos);
    CHECK(function_text(module, "wild") == wild_before);

    // Without wild's call the branch is uniform, and the pass marks it: the check above can fail.
    auto calm_only = cfr::ptx::parse(kCalledFromUnseen, "calls.ptx");
    calm_only.items.pop_back();
    run_pipeline(calm_only, parse_pipeline("uniform-branches"));
    CHECK(function_text(calm_only, "pick").find("bra.uni") != std::string::npos);
}
