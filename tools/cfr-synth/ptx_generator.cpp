// PTX for the synthetic CFGs of seed 000 section V-C 1, with divergent branches and a path
// signature per thread.
#include "tools/cfr-synth/ptx_generator.hpp"

#include <fmt/format.h>

#include <deque>
#include <limits>
#include <stdexcept>

namespace cfr::synth {

uint32_t words_per_thread(Conditions conditions) {
    return conditions == Conditions::Decisions ? 1 : 2;
}

namespace {

// For each node, the successor slot on a shortest path to the exit.
std::vector<uint32_t> escape_slots(const Graph& g) {
    const uint32_t none = std::numeric_limits<uint32_t>::max();
    std::vector<uint32_t> dist(g.size(), none);
    std::vector<std::vector<NodeId>> pred(g.size());
    for (NodeId n = 0; n < g.size(); ++n)
        for (NodeId s : g.succ[n])
            pred[s].push_back(n);
    std::deque<NodeId> queue{g.exit()};
    dist[g.exit()] = 0;
    while (!queue.empty()) {
        const NodeId v = queue.front();
        queue.pop_front();
        for (NodeId p : pred[v])
            if (dist[p] == none) {
                dist[p] = dist[v] + 1;
                queue.push_back(p);
            }
    }
    std::vector<uint32_t> slot(g.size(), 0);
    for (NodeId n = 0; n < g.size(); ++n) {
        if (n != g.exit() && dist[n] == none)
            throw std::invalid_argument(fmt::format("node {} does not reach the exit", n));
        for (uint32_t k = 0; k < g.succ[n].size(); ++k)
            if (dist[g.succ[n][k]] + 1 == dist[n]) {
                slot[n] = k;
                break;
            }
    }
    return slot;
}

std::vector<bool> has_predecessor(const Graph& g) {
    std::vector<bool> result(g.size(), false);
    for (const auto& s : g.succ)
        for (NodeId t : s)
            result[t] = true;
    return result;
}

} // namespace

std::string generate_ptx(const Graph& g, const KernelShape& shape) {
    const bool random = shape.conditions == Conditions::Random;
    if (random && shape.thresholds.size() < g.size())
        throw std::invalid_argument("one threshold per node needed");
    const auto escape = random ? escape_slots(g) : std::vector<uint32_t>(g.size(), 0);
    const auto labelled = has_predecessor(g);
    const uint32_t words = words_per_thread(shape.conditions);

    // %r1 thread, %r4 decisions / generator state, %r5 signature, %r6 scratch, %r7 fuel.
    std::string out = fmt::format(".version 7.0\n"
                                  ".target sm_75\n"
                                  ".address_size 64\n"
                                  "\n"
                                  ".visible .entry {0}(\n"
                                  "    .param .u64 {0}_param_in,\n"
                                  "    .param .u64 {0}_param_out\n"
                                  ")\n"
                                  "{{\n"
                                  "    .reg .pred %p<3>;\n"
                                  "    .reg .b32 %r<8>;\n"
                                  "    .reg .b64 %rd<6>;\n"
                                  "\n"
                                  "    ld.param.u64 %rd1, [{0}_param_in];\n"
                                  "    ld.param.u64 %rd2, [{0}_param_out];\n"
                                  "    cvta.to.global.u64 %rd1, %rd1;\n"
                                  "    cvta.to.global.u64 %rd2, %rd2;\n"
                                  "    mov.u32 %r1, %tid.x;\n"
                                  "    mov.u32 %r2, %ctaid.x;\n"
                                  "    mov.u32 %r3, %ntid.x;\n"
                                  "    mad.lo.u32 %r1, %r2, %r3, %r1;\n"
                                  "    mul.wide.u32 %rd3, %r1, {1};\n"
                                  "    add.s64 %rd4, %rd1, %rd3;\n"
                                  "    add.s64 %rd5, %rd2, %rd3;\n"
                                  "    ld.global.u32 %r4, [%rd4];\n",
                                  kKernelName, 4 * words);
    if (random) out += "    ld.global.u32 %r7, [%rd4+4];\n";
    out += "    mov.u32 %r5, 0;\n";

    for (NodeId n = 0; n < g.size(); ++n) {
        if (labelled[n]) out += fmt::format("$N{}:\n", n);
        out += fmt::format("    mad.lo.u32 %r5, %r5, 33, {};\n", n + 1);
        if (n == g.exit()) break;
        const auto& succ = g.succ[n];
        if (random) out += "    sub.s32 %r7, %r7, 1;\n";
        if (succ.size() == 2) {
            if (!random) {
                out += fmt::format("    and.b32 %r6, %r4, {};\n"
                                   "    setp.ne.u32 %p1, %r6, 0;\n",
                                   1u << n);
            } else {
                out += fmt::format("    mad.lo.u32 %r4, %r4, 1664525, 1013904223;\n"
                                   "    shr.u32 %r6, %r4, 28;\n"
                                   "    setp.lt.u32 %p1, %r6, {};\n",
                                   shape.thresholds[n]);
                // Out of fuel: take the escape edge.
                if (escape[n] == 1)
                    out += "    setp.le.s32 %p2, %r7, 0;\n"
                           "    or.pred %p1, %p1, %p2;\n";
                else
                    out += "    setp.gt.s32 %p2, %r7, 0;\n"
                           "    and.pred %p1, %p1, %p2;\n";
            }
            out += fmt::format("    @%p1 bra $N{};\n", succ[1]);
        }
        if (succ[0] != n + 1) out += fmt::format("    bra $N{};\n", succ[0]);
    }
    out += "    st.global.u32 [%rd5], %r5;\n";
    if (random) out += "    st.global.u32 [%rd5+4], %r4;\n";
    out += "    ret;\n}\n";
    return out;
}

uint64_t count_paths(const Graph& g) {
    std::vector<uint64_t> paths(g.size(), 0);
    paths[g.exit()] = 1;
    for (NodeId n = g.exit(); n-- > 0;)
        for (NodeId s : g.succ[n])
            paths[n] += paths[s];
    return paths[g.entry()];
}

std::vector<uint32_t> decision_words(const Graph& g, uint32_t threads) {
    const uint64_t paths = count_paths(g);
    // Path number k, read in mixed radix over the branches met on the way.
    std::vector<uint64_t> below(g.size(), 0);
    below[g.exit()] = 1;
    for (NodeId n = g.exit(); n-- > 0;)
        for (NodeId s : g.succ[n])
            below[n] += below[s];
    std::vector<uint32_t> words(threads, 0);
    for (uint32_t t = 0; t < threads; ++t) {
        const uint32_t lane = t % 32, warp = t / 32;
        uint64_t k = (uint64_t(lane) * paths / 32 + warp) % paths;
        uint32_t word = 0;
        for (NodeId n = g.entry(); n != g.exit();) {
            const auto& succ = g.succ[n];
            if (succ.size() == 2 && k >= below[succ[0]]) {
                k -= below[succ[0]];
                word |= 1u << n;
                n = succ[1];
            } else {
                n = succ[0];
            }
        }
        words[t] = word;
    }
    return words;
}

} // namespace cfr::synth
