// A word of an instruction after its opcode (".global", ".f32", ".eq", ".L2::cache_hint") as a
// 16-bit id, and the list of them one instruction carries, in source order. The spellings the
// tools give a meaning to (types, comparisons, roundings, modifiers: type.hpp, modifier.hpp) and
// the other qualifiers of the PTX ISA have fixed ids; any other spelling (PTX from a newer ISA) is
// interned once per process and keeps its spelling for printing. What a word means is read from
// its id, never from its spelling.
#pragma once

#include "ptx/modifier.hpp"
#include "ptx/type.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

namespace cfr::ptx {

namespace detail {
// What each known word means, by id; filled once, before the first known word is handed out. An
// interned word's id indexes an entry that means nothing (or none: ids past the array).
struct WordMeaning {
    Type type = Type::None;
    Rounding rounding = Rounding::None;
    Modifier modifier = Modifier::Other;
    uint8_t comparison = 0; // the Comparison plus one; 0: none
};
inline constexpr std::size_t kMeaningSlots = 1024;
extern std::array<WordMeaning, kMeaningSlots> word_meanings;
} // namespace detail

class Word {
public:
    constexpr Word() = default;
    // The word of a spelling, with its dot; interned if the tools do not know it.
    static Word of(std::string_view spelling);
    // Words of a meaning: Word(Type::U32) is ".u32".
    Word(Type type);
    Word(Comparison comparison);
    Word(Rounding rounding);
    Word(Modifier modifier);

    std::string_view spelling() const;
    // None where the word is not a type
    Type type() const { return meaning().type; }
    std::optional<Comparison> comparison() const {
        const uint8_t c = meaning().comparison;
        return c ? std::optional<Comparison>(Comparison(c - 1)) : std::nullopt;
    }
    // None where the word is not a rounding
    Rounding rounding() const { return meaning().rounding; }
    // Other where the word is no Modifier
    Modifier modifier() const { return meaning().modifier; }
    uint16_t id() const { return id_; }

    friend bool operator==(Word, Word) = default;

private:
    explicit constexpr Word(uint16_t id) : id_(id) {}
    const detail::WordMeaning& meaning() const {
        static constexpr detail::WordMeaning kNone{};
        return id_ < detail::kMeaningSlots ? detail::word_meanings[id_] : kNone;
    }
    uint16_t id_ = 0;
};

// The words of one instruction in source order; up to kInline of them without an allocation.
// Sixteen bytes: the count and the words, or past kInline the count and the address of the
// vector that holds them.
class Words {
public:
    static constexpr std::size_t kInline = 7;
    static constexpr std::size_t kMax = UINT16_MAX; // the most one instruction may carry

    Words() = default;
    Words(std::initializer_list<Word> words);
    Words(const Words& other);
    Words& operator=(const Words& other);
    Words(Words&& other) noexcept;
    Words& operator=(Words&& other) noexcept;
    ~Words();

    void push_back(Word w) {
        if (size_ < kInline)
            inline_[size_++] = w;
        else
            insert(size_, w);
    }
    // Throws std::length_error past kMax words.
    void insert(std::size_t position, Word w);
    void erase(std::size_t position);
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    std::span<const Word> view() const { return {data(), size_}; }
    Word operator[](std::size_t i) const { return data()[i]; }
    Word& operator[](std::size_t i) { return data()[i]; }
    Word front() const { return data()[0]; }
    Word back() const { return data()[size_ - 1]; }
    const Word* begin() const { return data(); }
    const Word* end() const { return data() + size_; }
    bool contains(Word w) const;

    friend bool operator==(const Words& a, const Words& b);

private:
    bool spilled() const { return size_ > kInline; }
    std::vector<Word>* heap() const {
        std::vector<Word>* words;
        std::memcpy(&words, inline_.data(), sizeof words);
        return words;
    }
    void set_heap(std::vector<Word>* words) {
        std::memcpy(static_cast<void*>(inline_.data()), &words, sizeof words);
    }
    const Word* data() const { return spilled() ? heap()->data() : inline_.data(); }
    Word* data() { return spilled() ? heap()->data() : inline_.data(); }
    void release();

    uint16_t size_ = 0;
    std::array<Word, kInline> inline_{}; // the words; past kInline, where the heap holds them
    static_assert(sizeof(inline_) >= sizeof(std::vector<Word>*));
    static_assert(std::is_trivially_copyable_v<Word>);
};

} // namespace cfr::ptx
