// The strict convergence check (DeviceOptions::strict_convergence): planted violations of each
// rule (a member mask naming lanes that do not execute the instruction, a CTA barrier reached by
// a warp's lanes at different bar instructions or by some lanes only, an .aligned instruction run
// by part of the warp) end the launch with one message naming the kernel, line, instruction and
// masks; correct kernels (early exit before a barrier, partial member masks) run. Without the
// option the same kernels run as before.
#include "helpers.hpp"

using namespace emu_test;
using cfr::emu::ErrorCode;

namespace {

const char* kKernels = R"(
.version 7.8
.target sm_80
.address_size 64
.visible .entry shfl_full_mask_in_branch(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %laneid;
    setp.ge.u32 %p1, %r1, 16;
    @%p1 bra SKIP;
    shfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;
SKIP:
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
.visible .entry shfl_partial_mask_in_branch(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %laneid;
    mov.u32 %r2, 0;
    setp.ge.u32 %p1, %r1, 16;
    @%p1 bra SKIP;
    activemask.b32 %r3;
    shfl.sync.bfly.b32 %r2, %r1, 1, 31, %r3;
    vote.sync.ballot.b32 %r4, %p1, 0x0000ffff;
SKIP:
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
.visible .entry vote_mask_names_exited(.param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %laneid;
    setp.ge.u32 %p1, %r1, 8;
    @%p1 exit;
    setp.eq.u32 %p2, %r1, 0;
    vote.sync.ballot.b32 %r2, %p2, 0xffffffff;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
.visible .entry vote_mask_guard_false(.param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %laneid;
    setp.lt.u32 %p1, %r1, 30;
    @%p1 vote.sync.ballot.b32 %r2, %p1, 0xffffffff;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
.visible .entry bar_at_two_instructions()
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    mov.u32 %r1, %laneid;
    setp.lt.u32 %p1, %r1, 16;
    @%p1 bra LOW;
    bar.sync 0;
    bra.uni JOIN;
LOW:
    bar.sync 0;
JOIN:
    ret;
}
.visible .entry bar_by_some_lanes()
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    mov.u32 %r1, %laneid;
    setp.lt.u32 %p1, %r1, 16;
    @%p1 bra JOIN;
    bar.sync 0;
JOIN:
    add.u32 %r2, %r1, 1;
    ret;
}
.visible .entry bar_after_early_exit(.param .u64 out)
{
    .shared .align 4 .b32 buf[64];
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 40;
    @%p1 bra BODY;
    ret;
BODY:
    mul.wide.u32 %rd2, %r1, 4;
    mov.u64 %rd3, buf;
    add.u64 %rd4, %rd3, %rd2;
    st.shared.u32 [%rd4], %r1;
    bar.sync 0;
    barrier.sync.aligned 1;
    xor.b32 %r2, %r1, 1;
    mul.wide.u32 %rd2, %r2, 4;
    add.u64 %rd4, %rd3, %rd2;
    ld.shared.u32 %r3, [%rd4];
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd5, %rd1, %rd2;
    st.global.u32 [%rd5], %r3;
    ret;
}
.visible .entry bar_warp_sync_partial()
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    mov.u32 %r1, %laneid;
    setp.lt.u32 %p1, %r1, 16;
    @%p1 bar.warp.sync -1;
    ret;
}
)";

cfr::emu::DeviceOptions strict() {
    cfr::emu::DeviceOptions o;
    o.strict_convergence = true;
    return o;
}

// Runs `kernel` with one output buffer of `threads` words on a strict device.
cfr::emu::Error run_strict(const std::string& kernel, uint32_t threads, bool strict_mode = true) {
    Fixture f(kKernels, strict_mode ? strict() : cfr::emu::DeviceOptions{});
    auto out = f.upload(std::vector<uint32_t>(threads, 0));
    Params p;
    p.add(out);
    return f.run(kernel, {1, 1, 1}, {threads, 1, 1}, p);
}

void require_violation(const cfr::emu::Error& e, const std::vector<std::string>& parts) {
    INFO(e.message);
    REQUIRE(e.code == ErrorCode::ConvergenceViolation);
    CHECK(e.message.find("convergence violation") != std::string::npos);
    for (auto& part : parts)
        CHECK(e.message.find(part) != std::string::npos);
}

} // namespace

TEST_CASE("strict: a member mask naming lanes outside the branch is a violation") {
    require_violation(run_strict("shfl_full_mask_in_branch", 32),
                      {"'shfl.sync.bfly.b32'", "kernel 'shfl_full_mask_in_branch'", "PTX line 14",
                       "member mask 0xffffffff", "lanes 0xffff0000", "executing lanes 0x0000ffff"});
}

// CUDA: "all non-exited threads named in mask must execute the same intrinsic": an early return
// before a full-mask warp operation is legal.
TEST_CASE("strict: a member mask may name lanes that have exited") {
    Fixture f(kKernels, strict());
    auto out = f.upload(std::vector<uint32_t>(32, 7));
    Params p;
    p.add(out);
    auto e = f.run("vote_mask_names_exited", {1, 1, 1}, {32, 1, 1}, p);
    INFO(e.message);
    REQUIRE(e.ok());
    auto r = f.download<uint32_t>(out, 32);
    for (uint32_t l = 0; l < 32; ++l)
        CHECK(r[l] == (l < 8 ? 1u : 7u));
}

TEST_CASE("strict: a member mask naming lanes whose guard is false is a violation") {
    require_violation(run_strict("vote_mask_guard_false", 32),
                      {"'vote.sync.ballot.b32'", "lanes 0xc0000000", "executing lanes 0x3fffffff"});
}

TEST_CASE("strict: bar.warp.sync with a mask naming absent lanes is a violation") {
    require_violation(run_strict("bar_warp_sync_partial", 32), {"'bar.warp.sync'"});
}

TEST_CASE("strict: member masks that name the executing lanes are accepted") {
    Fixture f(kKernels, strict());
    auto out = f.upload(std::vector<uint32_t>(32, 0));
    Params p;
    p.add(out);
    auto e = f.run("shfl_partial_mask_in_branch", {1, 1, 1}, {32, 1, 1}, p);
    INFO(e.message);
    REQUIRE(e.ok());
    auto r = f.download<uint32_t>(out, 32);
    for (uint32_t l = 0; l < 32; ++l)
        CHECK(r[l] == (l < 16 ? l ^ 1 : 0));
}

TEST_CASE("strict: a CTA barrier reached at two bar instructions is a violation") {
    require_violation(run_strict("bar_at_two_instructions", 64),
                      {"different bar instructions", "'bar.sync'", "lanes 0x0000ffff",
                       "lanes 0xffff0000", "kernel 'bar_at_two_instructions'"});
}

TEST_CASE("strict: a CTA barrier reached by some lanes of a warp only is a violation") {
    require_violation(run_strict("bar_by_some_lanes", 64),
                      {"reached by lanes 0xffff0000 only", "lanes 0x0000ffff rejoin"});
}

TEST_CASE("strict: lanes that exit before a barrier do not take part") {
    Fixture f(kKernels, strict());
    auto out = f.upload(std::vector<uint32_t>(64, 0));
    Params p;
    p.add(out);
    auto e = f.run("bar_after_early_exit", {1, 1, 1}, {64, 1, 1}, p);
    INFO(e.message);
    REQUIRE(e.ok());
    auto r = f.download<uint32_t>(out, 64);
    for (uint32_t t = 0; t < 40; ++t)
        CHECK(r[t] == (t ^ 1));
}

TEST_CASE("strict: the convergence check is off unless asked for") {
    CHECK(run_strict("shfl_full_mask_in_branch", 32, false).ok());
    CHECK(run_strict("bar_by_some_lanes", 64, false).ok());
    CHECK(run_strict("vote_mask_names_exited", 32, false).ok());
}

TEST_CASE("strict: a convergent instruction no lane executes is not checked") {
    const char* ptx = R"(
.version 7.8
.target sm_80
.address_size 64
.visible .entry guarded_off()
{
    .reg .pred %p<3>;
    .reg .b32 %r<4>;
    mov.u32 %r1, %laneid;
    setp.lt.u32 %p1, %r1, 16;
    setp.gt.u32 %p2, %r1, 100;
    @%p1 bra DONE;
    @%p2 bar.sync 0;
    @%p2 vote.sync.ballot.b32 %r2, %p1, -1;
DONE:
    bar.sync 0;
    ret;
}
)";
    Fixture f(ptx, strict());
    auto e = f.run("guarded_off", {1, 1, 1}, {32, 1, 1}, Params());
    INFO(e.message);
    CHECK(e.ok());
}
