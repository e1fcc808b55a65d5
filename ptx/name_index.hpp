// Names to numbers, for the lookups a function's labels and registers need: one array of slots
// (open addressing, linear probing), sized once for the names expected, with no allocation per
// name. The names are views; what they view must outlive the index.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string_view>
#include <vector>

namespace cfr::ptx {

class NameIndex {
public:
    explicit NameIndex(size_t expected = 0) { reserve(expected); }

    // Maps `name` to `value`, replacing the value it had.
    void assign(std::string_view name, uint32_t value) {
        if ((size_ + 1) * 2 > slots_.size()) reserve(std::max<size_t>(8, size_ * 2 + 2));
        Slot& slot = slots_[index_of(slots_, name)];
        if (!slot.used()) ++size_;
        slot = Slot::of(name, value);
    }
    // The value of `name`; where it has none yet, `value`, which it then keeps.
    uint32_t find_or_add(std::string_view name, uint32_t value) {
        if ((size_ + 1) * 2 > slots_.size()) reserve(std::max<size_t>(8, size_ * 2 + 2));
        Slot& slot = slots_[index_of(slots_, name)];
        if (!slot.used()) {
            slot = Slot::of(name, value);
            ++size_;
        }
        return slot.value;
    }
    // The value of `name`, or nullptr.
    const uint32_t* find(std::string_view name) const {
        if (slots_.empty()) return nullptr;
        const Slot& slot = slots_[index_of(slots_, name)];
        return slot.used() ? &slot.value : nullptr;
    }
    size_t size() const { return size_; }

private:
    // 16 bytes: a name's bytes and length, its value; free where `data` is null (an empty name
    // views "").
    struct Slot {
        const char* data = nullptr;
        uint32_t size = 0;
        uint32_t value = 0;

        static Slot of(std::string_view name, uint32_t value) {
            return {name.data() ? name.data() : "", static_cast<uint32_t>(name.size()), value};
        }
        bool used() const { return data != nullptr; }
        std::string_view name() const { return {data, size}; }
    };
    std::vector<Slot> slots_; // a power of two, at most half full
    size_t size_ = 0;

    static uint64_t mix(uint64_t a, uint64_t b) {
        const unsigned __int128 product = static_cast<unsigned __int128>(a) * b;
        return static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
    }
    static uint64_t word(const unsigned char* p) {
        uint64_t w;
        std::memcpy(&w, p, 8);
        return w;
    }
    // Names of registers and labels are short: up to 16 bytes are read as two overlapping words
    // and mixed by one 128-bit multiplication, up to 32 as four words by two; longer names take
    // the library's hash.
    static size_t hash(std::string_view name) {
        const auto* p = reinterpret_cast<const unsigned char*>(name.data());
        const size_t n = name.size();
        if (n > 32) return std::hash<std::string_view>{}(name);
        if (n > 16)
            return static_cast<size_t>(
                mix(word(p) ^ 0xa0761d6478bd642fULL, word(p + 8) ^ n ^ 0xe7037ed1a0b428dbULL) ^
                mix(word(p + n - 16) ^ 0x8ebc6af09c88c6e3ULL,
                    word(p + n - 8) ^ 0x589965cc75374cc3ULL));
        uint64_t a = 0, b = 0;
        if (n >= 8) {
            a = word(p);
            b = word(p + n - 8);
        } else if (n >= 4) {
            uint32_t x = 0, y = 0;
            std::memcpy(&x, p, 4);
            std::memcpy(&y, p + n - 4, 4);
            a = x;
            b = y;
        } else if (n > 0) {
            a = (uint64_t{p[0]} << 16) | (uint64_t{p[n / 2]} << 8) | p[n - 1];
        }
        return static_cast<size_t>(mix(a ^ 0xa0761d6478bd642fULL, b ^ n ^ 0xe7037ed1a0b428dbULL));
    }
    // The slot that holds `name`, or the free one where it would go.
    static size_t index_of(const std::vector<Slot>& slots, std::string_view name) {
        const size_t mask = slots.size() - 1;
        for (size_t i = hash(name);; ++i) {
            const Slot& slot = slots[i & mask];
            if (!slot.used() || slot.name() == name) return i & mask;
        }
    }
    void reserve(size_t names) {
        size_t capacity = 8;
        while (capacity < names * 2)
            capacity *= 2;
        if (capacity <= slots_.size()) return;
        std::vector<Slot> bigger(capacity);
        for (const Slot& slot : slots_)
            if (slot.used()) bigger[index_of(bigger, slot.name())] = slot;
        slots_ = std::move(bigger);
    }
};

} // namespace cfr::ptx
