// libFuzzer target for pipeline strings (passes::parse_pipeline): any text is either rejected with
// a PipelineError or is a pipeline whose spelling parses back to itself, and which then runs over
// a kernel with unstructured control flow without throwing and leaves a module that prints and
// parses again.
#include "passes/pipeline.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"

#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {

// A loop entered in its middle (examples/loop_jump_in at -O3): every pass has work to do.
constexpr std::string_view kKernel = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry loop_jump_in(.param .u64 p0, .param .u64 p1, .param .u64 p2, .param .u64 p3,
                             .param .u32 p4)
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<25>;
	.reg .b64 	%rd<16>;
	ld.param.u64 	%rd2, [p0];
	ld.param.u64 	%rd3, [p1];
	ld.param.u64 	%rd4, [p2];
	ld.param.u64 	%rd5, [p3];
	ld.param.u32 	%r11, [p4];
	mov.u32 	%r12, %ntid.x;
	mov.u32 	%r13, %ctaid.x;
	mov.u32 	%r14, %tid.x;
	mad.lo.s32 	%r1, %r13, %r12, %r14;
	setp.ge.s32 	%p1, %r1, %r11;
	@%p1 bra 	$L__BB0_5;
	cvta.to.global.u64 	%rd6, %rd4;
	cvt.s64.s32 	%rd1, %r1;
	mul.wide.s32 	%rd7, %r1, 4;
	add.s64 	%rd8, %rd6, %rd7;
	ld.global.u32 	%r23, [%rd8];
	cvta.to.global.u64 	%rd9, %rd3;
	add.s64 	%rd10, %rd9, %rd7;
	ld.global.u32 	%r3, [%rd10];
	cvta.to.global.u64 	%rd11, %rd2;
	add.s64 	%rd12, %rd11, %rd7;
	ld.global.u32 	%r17, [%rd12];
	setp.ne.s32 	%p2, %r17, 1;
	mov.u32 	%r24, 0;
	@%p2 bra 	$L__BB0_3;
$L__BB0_2:
	shr.u32 	%r18, %r23, 3;
	xor.b32  	%r19, %r18, %r23;
	add.s32 	%r23, %r19, %r24;
	add.s32 	%r24, %r24, 1;
$L__BB0_3:
	setp.lt.s32 	%p3, %r24, %r3;
	@%p3 bra 	$L__BB0_6;
	bra.uni 	$L__BB0_4;
$L__BB0_6:
	mad.lo.s32 	%r23, %r23, 3, 1;
	bra.uni 	$L__BB0_2;
$L__BB0_4:
	add.s32 	%r20, %r24, %r23;
	cvta.to.global.u64 	%rd13, %rd5;
	shl.b64 	%rd14, %rd1, 2;
	add.s64 	%rd15, %rd13, %rd14;
	st.global.u32 	[%rd15], %r20;
$L__BB0_5:
	ret;
}
)";

bool same(const std::vector<cfr::passes::PassSpec>& a,
          const std::vector<cfr::passes::PassSpec>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i].name != b[i].name || a[i].options != b[i].options) return false;
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::vector<cfr::passes::PassSpec> pipeline;
    try {
        pipeline = cfr::passes::parse_pipeline(text);
    } catch (const cfr::passes::PipelineError&) {
        return 0;
    }
    const std::string spelled = cfr::passes::spelling(pipeline);
    if (!same(cfr::passes::parse_pipeline(spelled), pipeline)) std::abort();
    if (pipeline.size() > 8) return 0; // long pipelines only repeat what short ones exercise
    static const cfr::ptx::Module kModule = cfr::ptx::parse(kKernel, "loop_jump_in.ptx");
    cfr::ptx::Module module = kModule;
    cfr::passes::run_pipeline(module, pipeline);
    (void)cfr::ptx::parse(cfr::ptx::print(module), "rewritten.ptx");
    return 0;
}
