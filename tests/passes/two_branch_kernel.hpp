// A kernel with one uniform branch (on a parameter) and one divergent branch (on %tid.x) to the
// same join: the pipeline and contract tests run passes on it.
#pragma once

namespace cfr::test {

inline constexpr const char* kTwoBranchKernel = R"(.version 8.0
.target sm_75
.address_size 64

.visible .entry k(.param .u32 n)
{
    .reg .pred %p<3>;
    .reg .b32 %r<4>;
    ld.param.u32 %r1, [n];
    setp.eq.s32 %p1, %r1, 0;
    @%p1 bra A;
    mov.u32 %r2, %tid.x;
    setp.eq.s32 %p2, %r2, 0;
    @%p2 bra A;
    mov.u32 %r3, 1;
A:
    ret;
}
)";

} // namespace cfr::test
