// NameIndex: names to numbers by open addressing. Its answers equal a std::unordered_map's on
// names of every length (the empty one included), names that share long prefixes, a name viewed
// from a view without data, through every growth.
#include "ptx/name_index.hpp"

#include <catch2/catch.hpp>

#include <deque>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

using cfr::ptx::NameIndex;

namespace {

// A name of `length` letters from a few, so that names collide in prefix and in hash slots.
std::string random_name(std::mt19937& rng, size_t length) {
    std::uniform_int_distribution<int> letter(0, 3);
    std::string name;
    for (size_t i = 0; i < length; ++i)
        name.push_back(static_cast<char>('a' + letter(rng)));
    return name;
}

} // namespace

TEST_CASE("name index: an empty index finds nothing") {
    const NameIndex index;
    CHECK(index.find("x") == nullptr);
    CHECK(index.find("") == nullptr);
    CHECK(index.size() == 0);
}

TEST_CASE("name index: the empty name is a name like any other") {
    NameIndex index;
    index.assign(std::string_view(), 7); // a view without data
    REQUIRE(index.find("") != nullptr);
    CHECK(*index.find("") == 7);
    CHECK(index.find("a") == nullptr);
    CHECK(index.find_or_add("", 9) == 7);
    CHECK(index.size() == 1);
}

TEST_CASE("name index: assign replaces, find_or_add keeps the first value") {
    NameIndex index;
    index.assign("$L__BB0_1", 1);
    index.assign("$L__BB0_1", 2);
    CHECK(*index.find("$L__BB0_1") == 2);
    CHECK(index.find_or_add("$L__BB0_1", 3) == 2);
    CHECK(index.find_or_add("$L__BB0_10", 4) == 4);
    CHECK(index.size() == 2);
}

TEST_CASE("name index: the same answers as an unordered_map through every growth") {
    std::mt19937 rng(20261127);
    std::uniform_int_distribution<size_t> length(0, 40);
    std::uniform_int_distribution<uint32_t> value(0, 1000);
    std::deque<std::string> names; // the index views them: they stay where they are
    std::unordered_map<std::string, uint32_t> oracle;
    NameIndex index(3); // fewer than it will hold: it grows
    for (int step = 0; step < 5000; ++step) {
        const std::string& name = names.emplace_back(random_name(rng, length(rng)));
        const uint32_t v = value(rng);
        if (step % 3 == 0) {
            index.assign(name, v);
            oracle[name] = v;
        } else {
            const auto [it, added] = oracle.emplace(name, v);
            REQUIRE(index.find_or_add(name, v) == it->second);
        }
        REQUIRE(index.size() == oracle.size());
    }
    for (int probe = 0; probe < 5000; ++probe) {
        const std::string name = random_name(rng, length(rng));
        const auto it = oracle.find(name);
        const uint32_t* found = index.find(name);
        REQUIRE((found != nullptr) == (it != oracle.end()));
        if (found) CHECK(*found == it->second);
    }
    for (const auto& [name, v] : oracle) {
        REQUIRE(index.find(name) != nullptr);
        CHECK(*index.find(name) == v);
    }
}
