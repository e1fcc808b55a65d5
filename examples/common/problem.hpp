// Host-side pieces shared by every example: device buffers bound to kernel parameters, the launch
// shape, deterministic input generation and the result check that prints PASS or FAIL.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace examples {

// One kernel pointer parameter: the host array copied to the device before the launch, and copied
// back afterwards when `out` is set. Pointer parameters come first, then the int scalars.
struct Buffer {
    void* host;
    std::size_t bytes;
    bool out;
};

template <class T>
Buffer in(std::vector<T>& v) {
    return {v.data(), v.size() * sizeof(T), false};
}

template <class T>
Buffer out(std::vector<T>& v) {
    return {v.data(), v.size() * sizeof(T), true};
}

struct Launch {
    unsigned grid;
    unsigned block;
    unsigned shared_bytes;
};

// A small integer hash (lowbias32): per-thread input that is deterministic but irregular, so that
// neighbouring threads take different branches.
inline std::uint32_t hash(std::uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

// Collects mismatches between computed and expected arrays and reports the verdict.
class Checker {
public:
    explicit Checker(std::string name) : name_(std::move(name)) {}

    template <class T>
    void equal(const char* what, const std::vector<T>& got, const std::vector<T>& want) {
        if (got.size() != want.size()) {
            note(std::string(what) + ": size " + std::to_string(got.size()) + ", expected " +
                 std::to_string(want.size()));
            return;
        }
        for (std::size_t i = 0; i < got.size(); ++i) {
            if (got[i] == want[i]) continue;
            note(std::string(what) + "[" + std::to_string(i) + "] = " + show(got[i]) +
                 ", expected " + show(want[i]));
        }
    }

    void note(const std::string& message) {
        if (errors_ < kShown) std::fprintf(stderr, "%s: %s\n", name_.c_str(), message.c_str());
        ++errors_;
    }

    int finish(std::size_t elements) const {
        if (errors_ == 0) {
            std::printf("%s: PASS (%zu elements)\n", name_.c_str(), elements);
            return 0;
        }
        std::printf("%s: FAIL (%zu mismatches in %zu elements)\n", name_.c_str(), errors_,
                    elements);
        return 1;
    }

private:
    template <class T>
    static std::string show(const T& v) {
        return std::to_string(v);
    }

    static constexpr std::size_t kShown = 10;
    std::string name_;
    std::size_t errors_ = 0;
};

} // namespace examples
