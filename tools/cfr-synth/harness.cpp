// Emulator runs and PTX transforms for the synthetic-CFG experiment (seed 000 section V-C).
#include "tools/cfr-synth/harness.hpp"

#include "passes/pipeline.hpp"
#include "ptx/cfg.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"
#include "ptx/walk.hpp"
#include "tools/cfr-synth/ptx_generator.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace cfr::synth {

Variant transform(const std::string& ptx, const Configuration& configuration) {
    Variant v;
    try {
        ptx::Module module = ptx::parse(ptx, "synth.ptx");
        passes::run_pipeline(module, passes::parse_pipeline(configuration.pipeline));
        v.ptx = ptx::print(module);
        for (const auto& item : module.items) {
            const auto* function = std::get_if<ptx::Function>(&item);
            if (!function || !function->body || function->name != kKernelName) continue;
            ptx::for_each_instruction(*function->body,
                                      [&](const ptx::Instruction&) { ++v.static_instructions; });
            const auto cfg = ptx::build_cfg(*function);
            v.klass = analysis::classify(cfg.graph(), cfg.entry(), cfg.exit()).klass;
        }
    } catch (const std::exception& e) {
        v.error = e.what();
    }
    return v;
}

Harness::Harness(uint64_t max_warp_instructions)
    : device_(emu::DeviceOptions{.threads = 1, .max_warp_instructions = max_warp_instructions}) {}

Harness::~Harness() = default;

Execution Harness::run(const std::string& ptx, const std::vector<uint32_t>& input, uint32_t threads,
                       uint32_t words_out) {
    Execution result;
    emu::Module* module = nullptr;
    emu::DevicePtr in = 0, out = 0;
    const auto fail = [&](const emu::Error& e) {
        result.error = fmt::format("{}: {}", emu::to_string(e.code), e.message);
    };
    const size_t out_bytes = size_t(threads) * words_out * 4;
    do {
        emu::Kernel* kernel = nullptr;
        if (auto e = device_.load_module(ptx, "synth.ptx", &module)) {
            fail(e);
            break;
        }
        if (auto e = device_.get_kernel(module, kKernelName, &kernel)) {
            fail(e);
            break;
        }
        if (auto e = device_.malloc(input.size() * 4, &in)) {
            fail(e);
            break;
        }
        if (auto e = device_.malloc(out_bytes, &out)) {
            fail(e);
            break;
        }
        device_.memcpy_htod(in, input.data(), input.size() * 4);
        device_.memset(out, 0xA5, out_bytes);
        void* params[] = {&in, &out};
        const uint32_t block = threads % 128 == 0 ? 128 : 32;
        const emu::LaunchConfig config{.grid = {(threads + block - 1) / block, 1, 1},
                                       .block = {block, 1, 1}};
        if (auto e = device_.launch(kernel, config, params, &result.stats)) {
            fail(e);
            break;
        }
        result.output.resize(size_t(threads) * words_out);
        device_.memcpy_dtoh(result.output.data(), out, out_bytes);
    } while (false);
    if (in) device_.free(in);
    if (out) device_.free(out);
    if (module) device_.unload_module(module);
    return result;
}

std::string compare_outputs(const std::vector<uint32_t>& expected,
                            const std::vector<uint32_t>& actual, uint32_t words_per_thread) {
    if (expected.size() != actual.size())
        return fmt::format("output sizes differ: {} and {} words", expected.size(), actual.size());
    for (size_t k = 0; k < expected.size(); ++k)
        if (expected[k] != actual[k])
            return fmt::format("thread {} word {}: expected {:#010x}, got {:#010x}",
                               k / words_per_thread, k % words_per_thread, expected[k], actual[k]);
    return {};
}

} // namespace cfr::synth
