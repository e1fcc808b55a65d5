// Marks on the nodes of a graph that grows, cleared in constant time: a node is marked where it
// carries the current stamp, and clearing takes a new stamp. What each marked node holds (a value
// of type T) is read as `fallback` on an unmarked node. For analyses that look at many small
// parts of one graph in turn, so that each part costs its own size, not the graph's.
#pragma once

#include "ptx/digraph.hpp"

#include <cstdint>
#include <vector>

namespace cfr::analysis {

template <typename T = char>
class NodeMarks {
public:
    explicit NodeMarks(T fallback = T{}) : fallback_(fallback) {}

    // Unmarks every node; the graph has `graph_size` nodes now.
    void clear(size_t graph_size) {
        if (stamps_.size() < graph_size) {
            stamps_.resize(graph_size, 0);
            values_.resize(graph_size, fallback_);
        }
        ++stamp_;
    }
    bool marked(NodeId n) const { return n < stamps_.size() && stamps_[n] == stamp_; }
    void mark(NodeId n, T value = T{1}) {
        stamps_[n] = stamp_;
        values_[n] = value;
    }
    T operator[](NodeId n) const { return marked(n) ? values_[n] : fallback_; }

private:
    T fallback_;
    std::vector<uint32_t> stamps_;
    std::vector<T> values_;
    uint32_t stamp_ = 0;
};

} // namespace cfr::analysis
