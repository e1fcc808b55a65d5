// The bit sets of guard values (passes/linearize/value_set.hpp) against std::set on random sets,
// across word boundaries: what guard-value propagation reads of them.
#include "passes/linearize/value_set.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <set>

using cfr::linearize::ValueSet;

namespace {

std::vector<uint32_t> random_members(std::mt19937& random, size_t values) {
    std::vector<uint32_t> members;
    const size_t count = random() % (values + 1);
    for (size_t i = 0; i < count; ++i)
        members.push_back(static_cast<uint32_t>(random() % values));
    return members;
}

} // namespace

TEST_CASE("value sets: membership, union, meet and order as sets of numbers", "[linearize]") {
    std::mt19937 random(20261127);
    for (const size_t values : {1, 63, 64, 65, 130, 300}) {
        for (int round = 0; round < 50; ++round) {
            const auto a_list = random_members(random, values);
            const auto b_list = random_members(random, values);
            const std::set<uint32_t> a(a_list.begin(), a_list.end());
            const std::set<uint32_t> b(b_list.begin(), b_list.end());
            const ValueSet as = ValueSet::of(values, a_list), bs = ValueSet::of(values, b_list);
            INFO(values << " values, round " << round);
            for (uint32_t v = 0; v < values + 70; ++v)
                CHECK(as.contains(v) == (a.count(v) != 0));
            CHECK(as.empty() == a.empty());
            const bool meet =
                std::any_of(a.begin(), a.end(), [&](uint32_t v) { return b.count(v); });
            CHECK(as.intersects(bs) == meet);
            CHECK(as.subset_of(bs) == std::includes(b.begin(), b.end(), a.begin(), a.end()));

            ValueSet both(values), without(values);
            both.assign_meet(as, bs, false);
            without.assign_meet(as, bs, true);
            for (uint32_t v = 0; v < values; ++v) {
                CHECK(both.contains(v) == (a.count(v) && b.count(v)));
                CHECK(without.contains(v) == (a.count(v) && !b.count(v)));
            }
            ValueSet joined = as;
            const bool grew = joined.insert_all(bs);
            CHECK(grew == !std::includes(a.begin(), a.end(), b.begin(), b.end()));
            for (uint32_t v = 0; v < values; ++v)
                CHECK(joined.contains(v) == (a.count(v) || b.count(v)));
            CHECK_FALSE(joined.insert_all(bs));
            joined.clear();
            CHECK(joined.empty());
        }
    }
}

TEST_CASE("value sets: members beyond the set's values are left out", "[linearize]") {
    const ValueSet set = ValueSet::of(10, {3, 10, 200});
    CHECK(set.contains(3));
    CHECK_FALSE(set.contains(10));
    CHECK_FALSE(set.contains(200));
}
