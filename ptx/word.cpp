// The ids of instruction words (word.hpp): a table of the known spellings built once, and an
// interner for the others. Known ids are looked up without a lock; an interned spelling is
// stored once for the life of the process and found by its id without a lock too.
#include "ptx/word.hpp"

#include "ptx/spelling_key.hpp"

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

namespace cfr::ptx {

namespace detail {
std::array<WordMeaning, kMeaningSlots> word_meanings{};
} // namespace detail

namespace {

// Qualifiers of the PTX ISA that no enum gives a meaning yet: known, so that the common ones
// never reach the interner.
constexpr std::string_view kOtherQualifiers[] = {
    ".nc",
    ".cs",
    ".lu",
    ".cv",
    ".wb",
    ".wt",
    ".volatile",
    ".relaxed",
    ".acquire",
    ".release",
    ".acq_rel",
    ".sc",
    ".weak",
    ".mmio",
    ".cta",
    ".gpu",
    ".sys",
    ".b128",
    ".m8n8k16",
    ".m8n8k32",
    ".m8n8k128",
    ".m16n8k4",
    ".m16n8k32",
    ".m16n8k64",
    ".m16n8k128",
    ".m16n8k256",
    ".m16n16",
    ".e4m3",
    ".e5m2",
    ".s4",
    ".u4",
    ".b1",
    ".L1::evict_last",
    ".L1::evict_first",
    ".L1::no_allocate",
    ".L1::evict_normal",
    ".L1::evict_unchanged",
    ".L2::evict_last",
    ".L2::evict_first",
    ".L2::evict_normal",
    ".L2::64B",
    ".L2::128B",
    ".L2::256B",
    ".tensor",
    ".noftz",
    ".collector::a::fill",
    ".sp",
    ".ordered_metadata",
    ".f8f6f4",
    ".kind::f16",
    ".multicast::cluster",
    ".im2col",
    ".tile",
    ".4d",
    ".5d",
    ".pos",
    ".neg",
    ".abs",
};

constexpr std::size_t kMaxWords = 65536;

struct Meaning {
    Type type = Type::None;
    std::optional<Comparison> comparison;
    Rounding rounding = Rounding::None;
    Modifier modifier = Modifier::Other;
};

// The known words: id 0 is no word; ids 1 .. size-1 the known spellings.
class KnownWords {
public:
    KnownWords() {
        spellings_.emplace_back();
        meanings_.emplace_back();
        for (std::size_t t = 1; t <= std::size_t(Type::Pred); ++t) {
            add(ptx::spelling(Type(t))).type = Type(t);
            type_ids_[t] = last_;
        }
        for (std::size_t c = 0; c <= std::size_t(Comparison::Nan); ++c) {
            add(ptx::spelling(Comparison(c))).comparison = Comparison(c);
            comparison_ids_[c] = last_;
        }
        for (std::size_t r = 1; r <= std::size_t(Rounding::Rna); ++r) {
            add(ptx::spelling(Rounding(r))).rounding = Rounding(r);
            rounding_ids_[r] = last_;
        }
        for (std::size_t m = 1; m < kModifierCount; ++m) {
            add(ptx::spelling(Modifier(m))).modifier = Modifier(m);
            modifier_ids_[m] = last_;
        }
        for (const std::string_view q : kOtherQualifiers)
            add(q);
        build_index();
        if (meanings_.size() > detail::kMeaningSlots)
            throw std::logic_error("more known instruction words than ptx::detail::kMeaningSlots");
        for (std::size_t id = 0; id < meanings_.size(); ++id) {
            const Meaning& m = meanings_[id];
            const auto comparison =
                m.comparison ? uint8_t(std::size_t(*m.comparison) + 1) : uint8_t{0};
            detail::word_meanings[id] = {m.type, m.rounding, m.modifier, comparison};
        }
    }

    std::optional<uint16_t> find(std::string_view s) const {
        const SpellingKey key(s);
        for (std::size_t slot = key.hash() & mask_;; slot = (slot + 1) & mask_) {
            const uint16_t id = slots_[slot];
            if (id == 0) return std::nullopt;
            if (same_spelling(key, s, keys_[id], spellings_[id])) return id;
        }
    }
    std::size_t size() const { return spellings_.size(); }
    std::string_view spelling(uint16_t id) const { return spellings_[id]; }
    uint16_t id(Type t) const { return type_ids_[std::size_t(t)]; }
    uint16_t id(Comparison c) const { return comparison_ids_[std::size_t(c)]; }
    uint16_t id(Rounding r) const { return rounding_ids_[std::size_t(r)]; }
    uint16_t id(Modifier m) const { return modifier_ids_[std::size_t(m)]; }

private:
    // The meaning of a spelling, added if it is new; last_ is its id.
    Meaning& add(std::string_view s) {
        const auto it = std::find(spellings_.begin(), spellings_.end(), s);
        last_ = static_cast<uint16_t>(it - spellings_.begin());
        if (it == spellings_.end()) {
            spellings_.push_back(s);
            meanings_.emplace_back();
        }
        return meanings_[last_];
    }
    void build_index() {
        std::size_t slots = 1;
        while (slots < 4 * spellings_.size())
            slots *= 2;
        mask_ = slots - 1;
        slots_.assign(slots, 0);
        for (const std::string_view spelling : spellings_)
            keys_.emplace_back(spelling);
        for (std::size_t id = 1; id < spellings_.size(); ++id) {
            std::size_t slot = keys_[id].hash() & mask_;
            while (slots_[slot] != 0)
                slot = (slot + 1) & mask_;
            slots_[slot] = static_cast<uint16_t>(id);
        }
    }

    std::vector<std::string_view> spellings_;
    std::vector<SpellingKey> keys_; // of spellings_
    std::vector<Meaning> meanings_;
    std::vector<uint16_t> slots_;
    std::size_t mask_ = 0;
    uint16_t last_ = 0;
    std::array<uint16_t, std::size_t(Type::Pred) + 1> type_ids_{};
    std::array<uint16_t, std::size_t(Comparison::Nan) + 1> comparison_ids_{};
    std::array<uint16_t, std::size_t(Rounding::Rna) + 1> rounding_ids_{};
    std::array<uint16_t, kModifierCount> modifier_ids_{};
};

const KnownWords& known() {
    static const KnownWords words;
    return words;
}

// Spellings the tools do not know, for the life of the process. Ids are handed out under a lock;
// a spelling is read by its id without one (its chunk is published before the id is).
class Interner {
public:
    uint16_t id_of(std::string_view s, std::size_t first_id) {
        {
            std::shared_lock lock(mutex_);
            if (const auto it = ids_.find(s); it != ids_.end()) return it->second;
        }
        std::unique_lock lock(mutex_);
        if (const auto it = ids_.find(s); it != ids_.end()) return it->second;
        const std::size_t id = first_id + count_;
        if (id >= kMaxWords)
            throw std::length_error(
                "more than 65536 distinct instruction modifiers in one process");
        auto& chunk = chunks_[count_ / kChunk];
        if (!chunk.load(std::memory_order_relaxed))
            chunk.store(new std::string[kChunk], std::memory_order_release);
        std::string& stored = chunk.load(std::memory_order_relaxed)[count_ % kChunk];
        stored.assign(s);
        ++count_;
        ids_.emplace(stored, static_cast<uint16_t>(id));
        return static_cast<uint16_t>(id);
    }
    std::string_view spelling(std::size_t index) const {
        return chunks_[index / kChunk].load(std::memory_order_acquire)[index % kChunk];
    }

private:
    static constexpr std::size_t kChunk = 256;
    std::shared_mutex mutex_;
    std::unordered_map<std::string_view, uint16_t> ids_;
    std::size_t count_ = 0;
    std::array<std::atomic<std::string*>, kMaxWords / kChunk> chunks_{};
};

Interner& interner() {
    static Interner* const words = new Interner; // never destroyed: words outlive every module
    return *words;
}

} // namespace

Word Word::of(std::string_view s) {
    if (const auto id = known().find(s)) return Word(*id);
    return Word(interner().id_of(s, known().size()));
}

Word::Word(Type type) : id_(known().id(type)) {}
Word::Word(Comparison comparison) : id_(known().id(comparison)) {}
Word::Word(Rounding rounding) : id_(known().id(rounding)) {}
Word::Word(Modifier modifier) : id_(known().id(modifier)) {}

std::string_view Word::spelling() const {
    const KnownWords& k = known();
    return id_ < k.size() ? k.spelling(id_) : interner().spelling(id_ - k.size());
}

Words::Words(std::initializer_list<Word> words) {
    for (const Word w : words)
        push_back(w);
}

Words::Words(const Words& other) : size_(other.size_), inline_(other.inline_) {
    if (other.spilled()) set_heap(new std::vector<Word>(*other.heap()));
}

Words& Words::operator=(const Words& other) {
    if (this != &other) *this = Words(other);
    return *this;
}

Words::Words(Words&& other) noexcept
    : size_(std::exchange(other.size_, 0)), inline_(other.inline_) {}

Words& Words::operator=(Words&& other) noexcept {
    if (this != &other) {
        release();
        size_ = std::exchange(other.size_, 0);
        inline_ = other.inline_;
    }
    return *this;
}

Words::~Words() {
    release();
}

void Words::release() {
    if (spilled()) delete heap();
    size_ = 0;
}

void Words::insert(std::size_t position, Word w) {
    if (size_ == kMax)
        throw std::length_error("more than " + std::to_string(kMax) + " words in one instruction");
    if (size_ < kInline) {
        std::copy_backward(inline_.begin() + position, inline_.begin() + size_,
                           inline_.begin() + size_ + 1);
        inline_[position] = w;
    } else if (size_ == kInline) {
        // The words move to the heap only once the vector holds them all: a failed allocation
        // leaves the list as it was.
        auto words = std::make_unique<std::vector<Word>>(inline_.begin(), inline_.end());
        words->insert(words->begin() + static_cast<std::ptrdiff_t>(position), w);
        set_heap(words.release());
    } else {
        std::vector<Word>& words = *heap();
        words.insert(words.begin() + static_cast<std::ptrdiff_t>(position), w);
    }
    ++size_;
}

void Words::erase(std::size_t position) {
    Word* d = data();
    std::copy(d + position + 1, d + size_, d + position);
    if (spilled()) {
        std::vector<Word>* words = heap();
        words->pop_back();
        if (words->size() == kInline) {
            std::copy(words->begin(), words->end(), inline_.begin());
            delete words;
        }
    }
    --size_;
}

bool Words::contains(Word w) const {
    return std::find(begin(), end(), w) != end();
}

bool operator==(const Words& a, const Words& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

} // namespace cfr::ptx
