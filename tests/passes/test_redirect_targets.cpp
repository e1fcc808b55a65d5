// Where a redirect pass of the guard sequence may send an edge (passes/linearize/
// redirect_targets.hpp), against the nesting rule checked edge by edge on random sequences: jumps
// forward and backward, loops nested or not, dead nodes, edges to the region's exit.
#include "passes/linearize/redirect_targets.hpp"

#include <catch2/catch.hpp>

#include <random>
#include <vector>

using cfr::linearize::kNoSlot;
using cfr::linearize::kRegionExit;
using cfr::linearize::RedirectTargets;
using cfr::linearize::SKind;
using cfr::linearize::SNode;

namespace {

std::vector<SNode> random_sequence(std::mt19937& random, size_t size) {
    const auto anywhere = [&] {
        const size_t to = random() % (size + 1);
        return to == size ? kRegionExit : to;
    };
    std::vector<SNode> nodes(size);
    for (size_t n = 0; n < size; ++n) {
        SNode& node = nodes[n];
        node.dead = random() % 8 == 0;
        switch (random() % 4) {
        case 0:
            node.kind = SKind::Body;
            node.out = anywhere();
            break;
        case 1:
            node.kind = SKind::Entry;
            node.out = anywhere();
            break;
        case 2:
            node.kind = SKind::Guard;
            node.match = anywhere();
            node.miss = anywhere();
            break;
        default:
            node.kind = SKind::BackGuard;
            node.match = random() % (n + 1);
            node.miss = anywhere();
        }
    }
    return nodes;
}

// The rule itself: the edge a -> b crosses no jump c -> d of another live node (a < c < b < d, or
// c < a < d < b), enters no loop t..i past its header (a < t < b <= i) and leaves none past its
// back guard (t <= a < i < b).
bool nests(const std::vector<SNode>& nodes, size_t a, size_t b) {
    const size_t end = nodes.size();
    for (size_t n = 0; n < end; ++n) {
        const SNode& node = nodes[n];
        if (node.dead) continue;
        if (node.kind == SKind::BackGuard) {
            const size_t t = node.match, i = n;
            if (a < t && t < b && b <= i) return false;
            if (t <= a && a < i && i < b) return false;
        }
        if (n == a) continue;
        for (const size_t to :
             {node.out, node.miss, node.kind == SKind::Guard ? node.match : kNoSlot}) {
            if (to == kNoSlot) continue;
            const size_t c = n, d = to == kRegionExit ? end : to;
            if (d <= c) continue;
            if ((a < c && c < b && b < d) || (c < a && a < d && d < b)) return false;
        }
    }
    return true;
}

} // namespace

TEST_CASE("redirect targets: the edges a pass may redirect keep every jump and loop nested",
          "[linearize]") {
    std::mt19937 random(20261128);
    size_t allowed = 0, refused = 0;
    for (int round = 0; round < 400; ++round) {
        const size_t size = 1 + random() % 40;
        const auto nodes = random_sequence(random, size);
        RedirectTargets targets(nodes);
        for (size_t a = 0; a < size; ++a) {
            if (random() % 3 == 0) continue; // a pass asks for some sources only
            targets.start(a);
            for (size_t b = a + 1; b <= size; ++b) {
                if (random() % 2 == 0) continue; // and for some targets of each
                INFO("round " << round << ", edge " << a << " -> " << b << " of " << size);
                const bool expected = nests(nodes, a, b);
                CHECK(targets.allowed(b == size ? kRegionExit : b) == expected);
                ++(expected ? allowed : refused);
            }
        }
    }
    CHECK(allowed > 1000);
    CHECK(refused > 1000);
}
