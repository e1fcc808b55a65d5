// Blocks that wait for each other: thread-block clusters (barrier.cluster, mapa, getctarank,
// shared::cluster loads, stores and atomics, the cluster's special registers) and grid-wide
// synchronisation in a cooperative launch (the grid barrier at %envreg1:%envreg2). And what must
// fail: another block's shared memory after it exited, a mapa rank outside the cluster, a cluster
// barrier some threads never reach, a grid barrier in an ordinary launch, and, under the strict
// convergence check, barrier.cluster.arrive.aligned by part of a warp.
#include "helpers.hpp"

using namespace emu_test;
using cfr::emu::Dim3;
using cfr::emu::ErrorCode;
using cfr::emu::LaunchConfig;

namespace {

const char* kCluster = R"(
.version 8.0
.target sm_90
.address_size 64
// out[block * 32 + t] = neighbour's tile[31 - t] * 10 + this block's rank; each block also adds
// its rank + 1 to rank 0's counter; block 0 thread 0 writes the counter and the geometry.
.visible .entry neighbours(.param .u64 out, .param .u64 info)
{
    .shared .align 4 .b32 tile[32];
    .shared .align 4 .b32 counter;
    .reg .pred %p<3>;
    .reg .b32 %r<24>;
    .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [info];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %cluster_ctarank;
    mov.u32 %r3, %cluster_nctarank;
    mul.lo.u32 %r4, %r2, 100;
    add.u32 %r4, %r4, %r1;
    mov.u32 %r5, tile;
    shl.b32 %r6, %r1, 2;
    add.u32 %r7, %r5, %r6;
    st.shared.u32 [%r7], %r4;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 st.shared.u32 [counter], 0;
    barrier.cluster.arrive.aligned;
    barrier.cluster.wait.aligned;
    // the neighbour: rank ^ 1, through a shared::cluster address
    xor.b32 %r8, %r2, 1;
    sub.u32 %r9, 31, %r1;
    shl.b32 %r9, %r9, 2;
    add.u32 %r9, %r5, %r9;
    mapa.shared::cluster.u32 %r10, %r9, %r8;
    ld.shared::cluster.u32 %r11, [%r10];
    mul.lo.u32 %r11, %r11, 10;
    add.u32 %r11, %r11, %r2;
    mov.u32 %r12, %ctaid.x;
    shl.b32 %r13, %r12, 5;
    add.u32 %r13, %r13, %r1;
    mul.wide.u32 %rd3, %r13, 4;
    add.u64 %rd4, %rd1, %rd3;
    st.global.u32 [%rd4], %r11;
    // rank 0's counter through a generic address
    mov.u64 %rd5, counter;
    cvta.shared.u64 %rd6, %rd5;
    mapa.u64 %rd7, %rd6, 0;
    add.u32 %r14, %r2, 1;
    @%p1 atom.add.u32 %r15, [%rd7], %r14;
    getctarank.u64 %r16, %rd7;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    or.b32 %r17, %r12, %r1;
    setp.eq.u32 %p2, %r17, 0;
    @!%p2 bra DONE;
    ld.shared.u32 %r18, [counter];
    st.global.u32 [%rd2], %r18;
    st.global.u32 [%rd2+4], %r3;
    st.global.u32 [%rd2+8], %r16;
    mov.u32 %r19, %nclusterid.x;
    st.global.u32 [%rd2+12], %r19;
    mov.u32 %r20, %is_explicit_cluster;
    st.global.u32 [%rd2+16], %r20;
DONE:
    barrier.cluster.arrive;
    barrier.cluster.wait;
    ret;
}
// Rank 1 raises a flag and exits; rank 0 waits for the flag, then reads rank 1's shared memory.
.visible .entry after_exit(.param .u64 flag)
{
    .shared .align 4 .b32 cell;
    .reg .pred %p<3>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [flag];
    mov.u32 %r1, %cluster_ctarank;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 st.global.u32 [%rd1], 1;
    @%p1 exit;
WAIT:
    ld.volatile.global.u32 %r5, [%rd1];
    setp.eq.u32 %p2, %r5, 0;
    @%p2 bra WAIT;
    mov.u32 %r2, cell;
    mapa.shared::cluster.u32 %r3, %r2, 1;
    ld.shared::cluster.u32 %r4, [%r3];
    ret;
}
.visible .entry bad_rank()
{
    .shared .align 4 .b32 cell;
    .reg .b32 %r<4>;
    mov.u32 %r1, cell;
    mapa.shared::cluster.u32 %r2, %r1, 2;
    ret;
}
// Rank 1 waits for a flag rank 0 sets only after the cluster barrier: a deadlock.
.visible .entry cluster_deadlock(.param .u64 flag)
{
    .reg .pred %p<3>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [flag];
    mov.u32 %r1, %cluster_ctarank;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 bra RANK0;
SPIN:
    ld.volatile.global.u32 %r2, [%rd1];
    setp.eq.u32 %p2, %r2, 0;
    @%p2 bra SPIN;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    ret;
RANK0:
    barrier.cluster.arrive;
    barrier.cluster.wait;
    st.global.u32 [%rd1], 1;
    ret;
}
.visible .entry partial_arrive()
{
    .reg .pred %p<2>;
    .reg .b32 %r<2>;
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 16;
    @%p1 bra DONE;
    barrier.cluster.arrive.aligned;
    barrier.cluster.wait.aligned;
DONE:
    ret;
}
)";

// nvcc's grid.sync(): the grid barrier's address from %envreg1:%envreg2 (a trap without one),
// thread 0 of each block adds to its counter and spins until every block has; then every block
// reads what the others wrote before the barrier.
const char* kGrid = R"(
.version 8.0
.target sm_75
.address_size 64
.visible .entry grid_rotate(.param .u64 data, .param .u64 out)
{
    .reg .pred %p<6>;
    .reg .b32 %r<24>;
    .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [data];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %nctaid.x;
    mov.u32 %r4, %ntid.x;
    mad.lo.u32 %r5, %r2, %r4, %r1;
    mul.wide.u32 %rd3, %r5, 4;
    add.u64 %rd4, %rd1, %rd3;
    mul.lo.u32 %r6, %r5, 7;
    st.global.u32 [%rd4], %r6;
    mov.u32 %r7, %envreg2;
    cvt.u64.u32 %rd5, %r7;
    mov.u32 %r8, %envreg1;
    cvt.u64.u32 %rd6, %r8;
    bfi.b64 %rd7, %rd6, %rd5, 32, 32;
    setp.ne.s64 %p1, %rd7, 0;
    @%p1 bra HAVE_BARRIER;
    trap;
HAVE_BARRIER:
    barrier.sync 0;
    setp.ne.u32 %p2, %r1, 0;
    @%p2 bra AFTER;
    add.s64 %rd8, %rd7, 4;
    setp.eq.u32 %p3, %r2, 0;
    mov.u32 %r9, -2147483647;
    sub.s32 %r10, %r9, %r3;
    selp.b32 %r11, %r10, 1, %p3;
    atom.add.release.gpu.u32 %r12, [%rd8], %r11;
WAIT:
    ld.acquire.gpu.u32 %r13, [%rd8];
    xor.b32 %r14, %r13, %r12;
    setp.gt.s32 %p4, %r14, -1;
    @%p4 bra WAIT;
AFTER:
    barrier.sync 0;
    mul.lo.u32 %r15, %r3, %r4;
    add.u32 %r16, %r5, %r4;
    rem.u32 %r16, %r16, %r15;
    mul.wide.u32 %rd9, %r16, 4;
    add.u64 %rd10, %rd1, %rd9;
    ld.global.u32 %r17, [%rd10];
    add.u64 %rd11, %rd2, %rd3;
    st.global.u32 [%rd11], %r17;
    ret;
}
)";

LaunchConfig clusters_of(Dim3 grid, Dim3 block, Dim3 cluster) {
    LaunchConfig c;
    c.grid = grid;
    c.block = block;
    c.cluster = cluster;
    c.explicit_cluster = true;
    return c;
}

} // namespace

TEST_CASE("emulator: blocks of a cluster read and add into each other's shared memory") {
    Fixture f(kCluster);
    auto out = f.upload(std::vector<uint32_t>(4 * 32, 0));
    auto info = f.upload(std::vector<uint32_t>(5, 99));
    const auto e = f.run("neighbours", clusters_of({4, 1, 1}, {32, 1, 1}, {2, 1, 1}),
                         Params().add(out).add(info));
    INFO(e.message);
    REQUIRE(e.ok());
    const auto got = f.download<uint32_t>(out, 4 * 32);
    for (uint32_t b = 0; b < 4; ++b)
        for (uint32_t t = 0; t < 32; ++t) {
            const uint32_t rank = b % 2, neighbour_rank = rank ^ 1;
            CHECK(got[b * 32 + t] == (neighbour_rank * 100 + (31 - t)) * 10 + rank);
        }
    const auto geometry = f.download<uint32_t>(info, 5);
    CHECK(geometry[0] == 3); // ranks 0 and 1 added 1 and 2
    CHECK(geometry[1] == 2); // %cluster_nctarank
    CHECK(geometry[2] == 0); // getctarank of rank 0's counter
    CHECK(geometry[3] == 2); // %nclusterid.x
    CHECK(geometry[4] == 1); // %is_explicit_cluster
}

TEST_CASE("emulator: a block's shared memory after it exited, a rank outside the cluster") {
    Fixture f(kCluster);
    auto flag = f.upload(std::vector<uint32_t>(1, 0));
    auto e = f.run("after_exit", clusters_of({2, 1, 1}, {32, 1, 1}, {2, 1, 1}), Params().add(flag));
    CHECK(e.code == ErrorCode::OutOfBounds);
    CHECK(e.message.find("has exited") != std::string::npos);
    e = f.run("bad_rank", clusters_of({2, 1, 1}, {32, 1, 1}, {2, 1, 1}), Params());
    CHECK(e.code == ErrorCode::OutOfBounds);
    CHECK(e.message.find("mapa: rank 2 is not a block of the cluster of 2") != std::string::npos);
}

TEST_CASE("emulator: a cluster barrier that some threads never reach stops the launch") {
    Fixture f(kCluster);
    auto flag = f.upload(std::vector<uint32_t>(1, 0));
    const auto e = f.run("cluster_deadlock", clusters_of({2, 1, 1}, {32, 1, 1}, {2, 1, 1}),
                         Params().add(flag));
    INFO(e.message);
    CHECK((e.code == ErrorCode::NoProgress || e.code == ErrorCode::BarrierDeadlock));
}

TEST_CASE("emulator: strict mode refuses barrier.cluster.arrive.aligned by part of a warp") {
    cfr::emu::DeviceOptions o;
    o.strict_convergence = true;
    Fixture f(kCluster, o);
    const auto e = f.run("partial_arrive", clusters_of({2, 1, 1}, {32, 1, 1}, {2, 1, 1}), Params());
    INFO(e.message);
    CHECK(e.code == ErrorCode::ConvergenceViolation);
    CHECK(e.message.find("'barrier.cluster.arrive.aligned'") != std::string::npos);
}

TEST_CASE("emulator: grid-wide synchronisation in a cooperative launch") {
    Fixture f(kGrid);
    const uint32_t blocks = 6, threads = 64, n = blocks * threads;
    auto data = f.upload(std::vector<uint32_t>(n, 0));
    auto out = f.upload(std::vector<uint32_t>(n, 0));
    LaunchConfig c;
    c.grid = {blocks, 1, 1};
    c.block = {threads, 1, 1};
    c.cooperative = true;
    auto e = f.run("grid_rotate", c, Params().add(data).add(out));
    INFO(e.message);
    REQUIRE(e.ok());
    const auto got = f.download<uint32_t>(out, n);
    for (uint32_t i = 0; i < n; ++i)
        CHECK(got[i] == (i + threads) % n * 7);
    c.cooperative = false;
    e = f.run("grid_rotate", c, Params().add(data).add(out));
    CHECK(e.code == ErrorCode::Trap);
}
