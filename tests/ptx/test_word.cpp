// Instruction words (ptx/word.hpp): every spelling of the enums has one id that means it, words no
// table knows are interned once (from any thread) and print back unchanged, and the inline list
// of an instruction's words keeps its order past its inline capacity and back, through copies and
// moves, up to its limit; a spelling's first eight bytes, read in a few loads, are its bytes.
#include "ptx/parser.hpp"
#include "ptx/spelling_key.hpp"
#include "ptx/word.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace cfr::ptx;

TEST_CASE("known words mean their enums", "[ptx][word]") {
    for (std::size_t t = 1; t <= std::size_t(Type::Pred); ++t) {
        const Word w{Type(t)};
        CHECK(w.type() == Type(t));
        CHECK(w.spelling() == spelling(Type(t)));
        CHECK(Word::of(spelling(Type(t))) == w);
    }
    for (std::size_t m = 1; m < kModifierCount; ++m) {
        const Word w{Modifier(m)};
        CHECK(w.modifier() == Modifier(m));
        CHECK(Word::of(spelling(Modifier(m))) == w);
    }
    for (std::size_t c = 0; c <= std::size_t(Comparison::Nan); ++c)
        CHECK(Word(Comparison(c)).comparison() == Comparison(c));
    for (std::size_t r = 1; r <= std::size_t(Rounding::Rna); ++r)
        CHECK(Word(Rounding(r)).rounding() == Rounding(r));
    // One spelling, two meanings: .hi compares (setp) and selects a half (mul).
    const Word hi = Word::of(".hi");
    CHECK(hi.comparison() == Comparison::Hi);
    CHECK(hi.modifier() == Modifier::Hi);
    CHECK(hi.type() == Type::None);
    // A known qualifier without an enum means nothing yet but keeps its spelling.
    const Word nc = Word::of(".nc");
    CHECK(nc.modifier() == Modifier::Other);
    CHECK(nc.spelling() == ".nc");
}

TEST_CASE("unknown words are interned once, from any thread", "[ptx][word]") {
    const Word a = Word::of(".cfr_test_unknown_a");
    CHECK(a.spelling() == ".cfr_test_unknown_a");
    CHECK(a.type() == Type::None);
    CHECK(a.modifier() == Modifier::Other);
    CHECK_FALSE(a.comparison());
    CHECK(Word::of(".cfr_test_unknown_a") == a);

    std::vector<std::vector<Word>> seen(4);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < seen.size(); ++t)
        threads.emplace_back([&seen, t] {
            for (int i = 0; i < 300; ++i)
                seen[t].push_back(Word::of(".cfr_test_many_" + std::to_string(i)));
        });
    for (auto& thread : threads)
        thread.join();
    for (int i = 0; i < 300; ++i) {
        const std::string spelling = ".cfr_test_many_" + std::to_string(i);
        for (const auto& words : seen) {
            CHECK(words[std::size_t(i)] == seen[0][std::size_t(i)]);
            CHECK(words[std::size_t(i)].spelling() == spelling);
        }
    }
}

TEST_CASE("an instruction's words keep their order past the inline capacity", "[ptx][word]") {
    Words words{Modifier::Sync, Modifier::Aligned};
    for (std::size_t i = 0; i < 12; ++i)
        words.push_back(Word::of(".cfr_test_word_" + std::to_string(i)));
    REQUIRE(words.size() == 14);
    CHECK(words[0] == Word(Modifier::Sync));
    CHECK(words[13].spelling() == ".cfr_test_word_11");
    words.insert(0, Modifier::Uni);
    CHECK(words.front() == Word(Modifier::Uni));
    CHECK(words[1] == Word(Modifier::Sync));
    words.erase(1);
    CHECK(words[1] == Word(Modifier::Aligned));
    CHECK(words.size() == 14);

    const Words copy = words;
    CHECK(copy == words);
    Words moved = std::move(words);
    CHECK(moved == copy);
    CHECK(words.empty()); // NOLINT(bugprone-use-after-move): a moved-from list is empty
    words = copy;
    CHECK(words == copy);
    CHECK(words.contains(Word::of(".cfr_test_word_5")));
    CHECK_FALSE(words.contains(Type::F64));

    Words small{Type::F32};
    small.insert(0, Rounding::Rn);
    CHECK(small == Words{Rounding::Rn, Type::F32});
    CHECK_FALSE(small == copy);
}

TEST_CASE("words erased back to the inline capacity leave the heap, and keep their values",
          "[ptx][word]") {
    STATIC_REQUIRE(sizeof(Words) == 16);
    Words words;
    std::vector<Word> expected;
    for (std::size_t i = 0; i < Words::kInline + 3; ++i) {
        const Word w = Word::of(".cfr_test_spill_" + std::to_string(i));
        words.push_back(w);
        expected.push_back(w);
    }
    for (std::size_t i = 0; i < 6; ++i) {
        const std::size_t at = i % 2 ? 0 : words.size() - 1;
        words.erase(at);
        expected.erase(expected.begin() + static_cast<std::ptrdiff_t>(at));
        REQUIRE(words.size() == expected.size());
        CHECK(std::vector<Word>(words.begin(), words.end()) == expected);
        const Words copy = words; // a copy taken on either side of the capacity
        CHECK(copy == words);
    }
    words.insert(2, Type::U32); // and back onto the heap past it
    expected.insert(expected.begin() + 2, Word(Type::U32));
    CHECK(std::vector<Word>(words.begin(), words.end()) == expected);
}

TEST_CASE("an instruction takes at most Words::kMax words", "[ptx][word]") {
    Words words;
    for (std::size_t i = 0; i < Words::kMax; ++i)
        words.push_back(Type::B32);
    CHECK_THROWS_AS(words.push_back(Type::B32), std::length_error);
    CHECK(words.size() == Words::kMax);

    std::string many = ".version 8.0\n.target sm_90\n.address_size 64\n"
                       ".visible .entry k()\n{\n\tmov";
    for (std::size_t i = 0; i <= Words::kMax; ++i)
        many += ".b32";
    many += " %r1, 0;\n\tret;\n}\n";
    CHECK_THROWS_WITH(cfr::ptx::parse(many, "many.ptx"),
                      Catch::Contains("more than 65535 words after the opcode"));
}

TEST_CASE("a spelling's first eight bytes, read in one to three loads, are its bytes",
          "[ptx][word]") {
    const std::string text = "%rd12345abcdefgh";
    for (std::size_t length = 0; length <= 10; ++length) {
        const std::string_view s = std::string_view(text).substr(0, length);
        uint64_t expected = 0;
        for (std::size_t i = 0; i < std::min<std::size_t>(length, 8); ++i)
            expected |= uint64_t(static_cast<unsigned char>(s[i])) << (8 * i);
        INFO("length " << length);
        CHECK(first_eight_bytes(s) == expected);
    }
    STATIC_REQUIRE(first_eight_bytes("%r5") == 0x35'72'25);
}
