// The workloads of the divergence-map and fusion benchmarks: every example (its real inputs, from
// its problem.hpp) at -O3 and -O0, and the kernels of bench/divergence_map/kernels.cu, each as
// PTX plus buffers and a sequence of launches that share them; and a runner that executes a
// workload on a fresh emulator device and reads a counter array back.
#pragma once

#include "emulator/device.hpp"
#include "example_launches.hpp"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace cfr::bench {

struct KernelLaunch {
    std::string kernel;
    emu::Dim3 grid, block;
    std::vector<int64_t> scalars; // in order, for the parameters that are not pointers
};

struct Workload {
    std::string name;  // "bitonic_sort -O3"
    std::string level; // "O3" or "O0"
    std::string ptx;
    std::vector<std::vector<uint8_t>> buffers; // pointer parameters take them in order
    std::vector<KernelLaunch> launches;        // share the buffers
};

struct WorkloadRun {
    emu::ErrorCode error = emu::ErrorCode::Success;
    std::string message;
    std::vector<std::vector<uint8_t>> buffers; // after the last launch
    std::vector<emu::LaunchStats> stats;       // per launch
    std::vector<uint64_t> counters;            // the counter array, if one was asked for
    uint64_t warp_instructions = 0, cycles = 0;
};

inline WorkloadRun run_workload(const Workload& w, const std::string& ptx,
                                const std::string& counter_symbol = "") {
    WorkloadRun run;
    emu::DeviceOptions options;
    options.threads = 1;
    emu::Device device(options);
    const auto fail = [&](const emu::Error& e) {
        run.error = e.code;
        run.message = e.message;
        return run;
    };
    emu::Module* module = nullptr;
    if (auto e = device.load_module(ptx, w.name, &module)) return fail(e);
    std::vector<emu::DevicePtr> pointers;
    for (const auto& b : w.buffers) {
        emu::DevicePtr p = 0;
        if (auto e = device.malloc(b.size(), &p)) return fail(e);
        if (auto e = device.memcpy_htod(p, b.data(), b.size())) return fail(e);
        pointers.push_back(p);
    }
    for (const auto& launch : w.launches) {
        emu::Kernel* kernel = nullptr;
        if (auto e = device.get_kernel(module, launch.kernel, &kernel)) return fail(e);
        const auto info = device.kernel_info(kernel);
        std::vector<uint8_t> params(info.param_bytes, 0);
        size_t next_buffer = 0, next_scalar = 0;
        for (const auto& param : info.params) {
            int64_t value = 0;
            if (param.size == 8 && next_buffer < pointers.size())
                value = int64_t(pointers[next_buffer++]);
            else if (next_scalar < launch.scalars.size())
                value = launch.scalars[next_scalar++];
            std::memcpy(params.data() + param.offset, &value, std::min<size_t>(param.size, 8));
        }
        emu::LaunchStats stats;
        if (auto e = device.launch(kernel, {launch.grid, launch.block, 0}, params.data(),
                                   params.size(), &stats))
            return fail(e);
        run.warp_instructions += stats.warp_instructions;
        run.cycles += stats.cycles;
        run.stats.push_back(std::move(stats));
    }
    for (size_t i = 0; i < pointers.size(); ++i) {
        std::vector<uint8_t> bytes(w.buffers[i].size());
        (void)device.memcpy_dtoh(bytes.data(), pointers[i], bytes.size());
        run.buffers.push_back(std::move(bytes));
    }
    if (!counter_symbol.empty()) {
        emu::DevicePtr p = 0;
        size_t bytes = 0;
        if (auto e = device.get_global(module, counter_symbol, &p, &bytes)) return fail(e);
        run.counters.resize(bytes / 8);
        if (auto e = device.memcpy_dtoh(run.counters.data(), p, bytes)) return fail(e);
    }
    return run;
}

inline std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

template <typename T>
std::vector<uint8_t> bytes_of(const std::vector<T>& values) {
    std::vector<uint8_t> bytes(values.size() * sizeof(T));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

// `ptx_dir` holds <example>.<level>.ptx and kernels.<level>.ptx (bench/divergence_map/run.sh
// writes them with -lineinfo); what it lacks comes from the build tree or the checked-in copies.
inline std::string find_ptx(const std::string& ptx_dir, const std::string& stem,
                            const std::string& level) {
    const std::string file = stem + "." + level + ".ptx";
    if (!ptx_dir.empty() && std::filesystem::exists(std::filesystem::path(ptx_dir) / file))
        return read_text(std::filesystem::path(ptx_dir) / file);
    if (stem == "kernels")
        return read_text(std::filesystem::path(CFRJIT_SOURCE_DIR) / "bench/divergence_map" / file);
    return test::example_ptx(stem, level);
}

inline std::vector<Workload> example_workloads(const std::string& ptx_dir) {
    std::vector<Workload> out;
    for (const auto& example : test::examples_list())
        for (const std::string level : {"O3", "O0"}) {
            const auto launch = example.launch();
            Workload w;
            w.name = example.name + " -" + level;
            w.level = level;
            w.ptx = find_ptx(ptx_dir, example.name, level);
            w.buffers = launch.buffers;
            KernelLaunch k{launch.kernel, launch.grid, launch.block, {}};
            for (auto s : launch.scalars)
                k.scalars.push_back(int64_t(s));
            w.launches.push_back(k);
            out.push_back(std::move(w));
        }
    return out;
}

// The kernels of kernels.cu with their inputs.
inline std::vector<Workload> own_workloads(const std::string& ptx_dir) {
    std::vector<Workload> out;
    std::mt19937 rng(2010); // the year of seed 004
    for (const std::string level : {"O3", "O0"}) {
        const std::string ptx = find_ptx(ptx_dir, "kernels", level);
        {
            Workload w{"scan_blelloch -" + level, level, ptx, {}, {}};
            std::vector<int> data(8 * 512);
            for (auto& v : data)
                v = int(rng() % 10);
            w.buffers = {bytes_of(data)};
            w.launches = {{"scan_blelloch", {8, 1, 1}, {256, 1, 1}, {}}};
            out.push_back(std::move(w));
        }
        {
            Workload w{"bfs_step -" + level, level, ptx, {}, {}};
            const int vertices = 2048;
            std::vector<int> row{0}, col, level_of(vertices, -1), changed{0};
            for (int v = 0; v < vertices; ++v) {
                const int degree = int(rng() % 7);
                for (int k = 0; k < degree; ++k)
                    col.push_back(int(rng() % vertices));
                row.push_back(int(col.size()));
                if (v % 97 == 0) level_of[v] = 0;
            }
            w.buffers = {bytes_of(row), bytes_of(col), bytes_of(level_of), bytes_of(changed)};
            for (int current = 0; current < 8; ++current)
                w.launches.push_back(
                    {"bfs_step", {vertices / 128, 1, 1}, {128, 1, 1}, {vertices, current}});
            out.push_back(std::move(w));
        }
        {
            Workload w{"escape_time -" + level, level, ptx, {}, {}};
            const int width = 256, height = 32;
            w.buffers = {std::vector<uint8_t>(width * height * 4, 0)};
            w.launches = {
                {"escape_time", {width / 128, height, 1}, {128, 1, 1}, {width, height, 64}}};
            out.push_back(std::move(w));
        }
        {
            Workload w{"srad_step -" + level, level, ptx, {}, {}};
            const int width = 256, height = 32;
            std::vector<int> image(width * height);
            for (int y = 0; y < height; ++y)
                for (int x = 0; x < width; ++x)
                    image[y * width + x] =
                        (x / 16 + y / 8) % 2 ? 200 + int(rng() % 40) : int(rng() % 40);
            w.buffers = {bytes_of(image), std::vector<uint8_t>(image.size() * 4, 0)};
            w.launches = {{"srad_step", {width / 128, height, 1}, {128, 1, 1}, {width, height}}};
            out.push_back(std::move(w));
        }
    }
    return out;
}

} // namespace cfr::bench
