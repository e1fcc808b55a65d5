// NodeList: a graph node's neighbours, two in place and more on the heap, behaves as a sequence
// whichever of the two holds them, through growth, copies, moves and erasure.
#include "ptx/digraph.hpp"
#include "ptx/node_list.hpp"

#include <catch2/catch.hpp>

#include <numeric>
#include <utility>
#include <vector>

using cfr::NodeId;
using cfr::NodeList;

namespace {

std::vector<NodeId> contents(const NodeList& list) {
    return {list.begin(), list.end()};
}

NodeList counting(size_t count) {
    NodeList list;
    for (NodeId n = 0; n < count; ++n)
        list.push_back(n);
    return list;
}

std::vector<NodeId> iota(size_t count) {
    std::vector<NodeId> v(count);
    std::iota(v.begin(), v.end(), NodeId{0});
    return v;
}

} // namespace

TEST_CASE("NodeList holds its nodes in order in place and on the heap") {
    for (size_t count : {0, 1, 2, 3, 4, 5, 17, 100}) {
        INFO(count << " nodes");
        const NodeList list = counting(count);
        CHECK(list.size() == count);
        CHECK(list.empty() == (count == 0));
        CHECK(contents(list) == iota(count));
        if (count > 0) {
            CHECK(list.front() == 0);
            CHECK(list.back() == count - 1);
            CHECK(list[count / 2] == count / 2);
        }
    }
}

TEST_CASE("NodeList copies and moves, in place and on the heap, leave the source as the "
          "sequence says") {
    for (size_t count : {0, 1, 2, 3, 9}) {
        INFO(count << " nodes");
        NodeList source = counting(count);

        NodeList copy(source);
        CHECK(contents(copy) == iota(count));
        copy.push_back(99); // the copy owns its nodes
        CHECK(contents(source) == iota(count));

        NodeList assigned = counting(5);
        assigned = source;
        CHECK(contents(assigned) == iota(count));
        const NodeList& itself = assigned;
        assigned = itself; // assigning a list to itself keeps its nodes
        CHECK(contents(assigned) == iota(count));

        NodeList moved(std::move(source));
        CHECK(contents(moved) == iota(count));
        CHECK(source.empty()); // NOLINT(bugprone-use-after-move): a moved-from list is empty
        source.push_back(7);   // and usable
        CHECK(contents(source) == std::vector<NodeId>{7});

        NodeList move_assigned = counting(4);
        move_assigned = std::move(moved);
        CHECK(contents(move_assigned) == iota(count));
        CHECK(moved.empty()); // NOLINT(bugprone-use-after-move)
    }
}

TEST_CASE("NodeList erases a range, clears, reserves and compares by contents") {
    NodeList list = counting(6);
    list.erase(list.begin() + 1, list.begin() + 3);
    CHECK(contents(list) == std::vector<NodeId>{0, 3, 4, 5});
    list.erase(list.begin(), list.end());
    CHECK(list.empty());

    NodeList reserved;
    reserved.reserve(10);
    for (NodeId n = 0; n < 10; ++n)
        reserved.push_back(n);
    CHECK(reserved == counting(10));
    CHECK_FALSE(reserved == counting(9));
    reserved.clear();
    CHECK(reserved.empty());
    CHECK(reserved == NodeList{});
}

TEST_CASE("a Digraph's lists grow as edges are added, and from_edges sizes them once") {
    cfr::Digraph g(3);
    for (NodeId to = 0; to < 3; ++to)
        for (int repeat = 0; repeat < 3; ++repeat)
            g.add_edge(0, to);
    CHECK(contents(g.succ[0]) == std::vector<NodeId>{0, 0, 0, 1, 1, 1, 2, 2, 2});
    CHECK(contents(g.pred[2]) == std::vector<NodeId>{0, 0, 0});
    const NodeId added = g.add_node();
    g.add_edge(added, 0);
    CHECK(contents(g.pred[0]) == std::vector<NodeId>{0, 0, 0, 3});

    const std::vector<std::pair<NodeId, NodeId>> edges{{0, 1}, {0, 2}, {1, 2}, {2, 0}, {2, 1}};
    const auto built = cfr::Digraph::from_edges(3, edges, [](const auto& e) { return e; });
    CHECK(contents(built.succ[0]) == std::vector<NodeId>{1, 2});
    CHECK(contents(built.succ[2]) == std::vector<NodeId>{0, 1});
    CHECK(contents(built.pred[2]) == std::vector<NodeId>{0, 1});
}
