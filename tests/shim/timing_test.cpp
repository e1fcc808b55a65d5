// Pending launches: collected in order when their events complete, never waited for on the hot
// path, drained at exit, forgotten with their context.
#include "runtime/timing.hpp"

#include <catch2/catch.hpp>

#include <set>

using namespace cfr::runtime;

TEST_CASE("timing: poll stops at the first launch not done, drain waits") {
    std::set<void*> done;
    std::vector<uint32_t> seen;
    int released = 0;
    EventOps ops;
    ops.query = [&](void* end) { return done.count(end) ? 0 : 1; };
    ops.wait = [&](void* end) {
        done.insert(end);
        return 0;
    };
    ops.elapsed_ms = [](void*, void*) { return 1.5f; };
    ops.release = [&](const PendingLaunch&) { ++released; };
    auto sink = [&](const PendingLaunch& p, double ms) {
        CHECK(ms == 1.5);
        seen.push_back(p.kernel);
    };
    int e[6];
    PendingLaunches q;
    for (uint32_t k = 0; k < 3; ++k)
        q.add({k, {}, {}, nullptr, &e[2 * k], &e[2 * k + 1]});
    done.insert(&e[1]);
    done.insert(&e[5]);
    q.poll(ops, sink);
    CHECK(seen == std::vector<uint32_t>{0});
    CHECK(q.size() == 2);
    CHECK(q.drain(ops, sink, true) == 0);
    CHECK(seen == std::vector<uint32_t>{0, 1, 2});
    CHECK(released == 3);
}

TEST_CASE("timing: a context going away takes its launches") {
    int a, b, c1, c2;
    PendingLaunches q;
    q.add({0, {}, {}, &c1, &a, &b});
    q.add({1, {}, {}, &c2, &a, &b});
    CHECK(q.forget_context(&c1) == 1);
    CHECK(q.size() == 1);
}
