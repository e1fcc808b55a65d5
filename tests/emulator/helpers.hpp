// Shared helpers for the emulator tests: load PTX from text or from tests/emulator/data, run a
// kernel with a packed parameter buffer, copy arrays in and out.
#pragma once

#include "emulator/device.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace emu_test {

inline std::string read_data(const std::string& name) {
    std::ifstream f(std::filesystem::path(CFRJIT_SOURCE_DIR) / "tests/emulator/data" / name);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// Packs arguments one after another with their natural alignment.
struct Params {
    std::vector<uint8_t> bytes;
    template <class T>
    Params& add(T v) {
        size_t a = alignof(T);
        size_t off = (bytes.size() + a - 1) / a * a;
        bytes.resize(off + sizeof(T));
        std::memcpy(bytes.data() + off, &v, sizeof(T));
        return *this;
    }
};

struct Fixture {
    cfr::emu::Device dev;
    cfr::emu::Module* mod = nullptr;

    explicit Fixture(const std::string& ptx, cfr::emu::DeviceOptions o = {}) : dev(o) {
        auto e = dev.load_module(ptx, "test.ptx", &mod);
        INFO(e.message);
        REQUIRE(e.ok());
    }
    template <class T>
    cfr::emu::DevicePtr upload(const std::vector<T>& v) {
        cfr::emu::DevicePtr p = 0;
        REQUIRE(dev.malloc(v.size() * sizeof(T), &p).ok());
        REQUIRE(dev.memcpy_htod(p, v.data(), v.size() * sizeof(T)).ok());
        return p;
    }
    template <class T>
    std::vector<T> download(cfr::emu::DevicePtr p, size_t n) {
        std::vector<T> v(n);
        REQUIRE(dev.memcpy_dtoh(v.data(), p, n * sizeof(T)).ok());
        return v;
    }
    cfr::emu::Error run(const std::string& kernel, cfr::emu::Dim3 grid, cfr::emu::Dim3 block,
                        const Params& params, cfr::emu::LaunchStats* stats = nullptr,
                        uint32_t dyn_shared = 0) {
        cfr::emu::Kernel* k = nullptr;
        auto e = dev.get_kernel(mod, kernel, &k);
        if (!e.ok()) return e;
        return run(kernel, cfr::emu::LaunchConfig(grid, block, dyn_shared), params, stats);
    }
    cfr::emu::Error run(const std::string& kernel, const cfr::emu::LaunchConfig& config,
                        const Params& params, cfr::emu::LaunchStats* stats = nullptr) {
        cfr::emu::Kernel* k = nullptr;
        auto e = dev.get_kernel(mod, kernel, &k);
        if (!e.ok()) return e;
        return dev.launch(k, config, params.bytes.data(), params.bytes.size(), stats);
    }
};

} // namespace emu_test
