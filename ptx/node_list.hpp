// One node's successors or predecessors: a sequence of node numbers that keeps up to two of them
// in itself and moves to the heap only beyond that. A basic block has one or two successors and
// few predecessors, so the lists of a whole graph live in the graph's one array of lists instead
// of an allocation each.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <utility>

namespace cfr {

using NodeId = uint32_t;

class NodeList {
public:
    NodeList() = default;
    NodeList(std::initializer_list<NodeId> nodes) {
        for (const NodeId n : nodes)
            push_back(n);
    }
    NodeList(const NodeList& other) { append(other.begin(), other.end()); }
    NodeList(NodeList&& other) noexcept { take(other); }
    NodeList& operator=(const NodeList& other) {
        if (this != &other) {
            clear();
            append(other.begin(), other.end());
        }
        return *this;
    }
    NodeList& operator=(NodeList&& other) noexcept {
        if (this != &other) {
            release();
            take(other);
        }
        return *this;
    }
    ~NodeList() { release(); }

    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    const NodeId* data() const { return on_heap() ? heap_ : local_; }
    NodeId* data() { return on_heap() ? heap_ : local_; }
    const NodeId* begin() const { return data(); }
    const NodeId* end() const { return data() + size_; }
    NodeId* begin() { return data(); }
    NodeId* end() { return data() + size_; }
    const NodeId& operator[](size_t i) const { return data()[i]; }
    NodeId& operator[](size_t i) { return data()[i]; }
    const NodeId& front() const { return data()[0]; }
    const NodeId& back() const { return data()[size_ - 1]; }

    void reserve(size_t capacity) {
        if (capacity > capacity_) grow(capacity);
    }
    void push_back(NodeId n) {
        if (size_ == capacity_) grow(2 * size_t{capacity_});
        data()[size_++] = n;
    }
    void clear() { size_ = 0; }
    // Removes the nodes in [first, last), keeping the order of the rest.
    NodeId* erase(NodeId* first, NodeId* last) {
        for (NodeId *to = first, *from = last; from != end(); ++to, ++from)
            *to = *from;
        size_ -= static_cast<uint32_t>(last - first);
        return first;
    }

    friend bool operator==(const NodeList& a, const NodeList& b) {
        return std::equal(a.begin(), a.end(), b.begin(), b.end());
    }

private:
    static constexpr uint32_t inline_capacity = 2;

    bool on_heap() const { return capacity_ > inline_capacity; }
    void grow(size_t capacity) {
        auto* bigger = new NodeId[capacity];
        std::copy(begin(), end(), bigger);
        release();
        heap_ = bigger;
        capacity_ = static_cast<uint32_t>(capacity);
    }
    void append(const NodeId* first, const NodeId* last) {
        reserve(size_ + static_cast<size_t>(last - first));
        std::copy(first, last, end());
        size_ += static_cast<uint32_t>(last - first);
    }
    void release() {
        if (on_heap()) delete[] heap_;
        capacity_ = inline_capacity;
    }
    // Takes other's nodes; other is left empty.
    void take(NodeList& other) {
        size_ = other.size_;
        capacity_ = other.capacity_;
        if (other.on_heap())
            heap_ = other.heap_;
        else
            std::memcpy(local_, other.local_, sizeof local_);
        other.size_ = 0;
        other.capacity_ = inline_capacity;
    }

    uint32_t size_ = 0;
    uint32_t capacity_ = inline_capacity;
    union {
        NodeId local_[inline_capacity] = {};
        NodeId* heap_;
    };
};

} // namespace cfr
