// Emulator runs and PTX transforms for the synthetic-CFG experiment (seed 000 section V-C).
#include "tools/cfr-synth/harness.hpp"

#include "passes/pipeline.hpp"
#include "ptx/cfg.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"
#include "ptx/walk.hpp"
#include "tools/cfr-synth/ptx_generator.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>

namespace cfr::synth {

Variant transform(const std::string& ptx, const Configuration& configuration) {
    Variant v;
    try {
        ptx::Module module = ptx::parse(ptx, "synth.ptx");
        apply(configuration, module);
        v.ptx = ptx::print(module);
        for (const auto& item : module.items) {
            const auto* function = std::get_if<ptx::Function>(&item);
            if (!function || !function->body || function->name != kKernelName) continue;
            ptx::for_each_instruction(*function->body,
                                      [&](const ptx::Instruction&) { ++v.static_instructions; });
            const auto cfg = ptx::build_cfg(*function);
            v.klass = analysis::structural_class(cfg.graph(), cfg.entry(), cfg.exit());
            v.shape = shape_problem(configuration.shape, cfg);
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
        const emu::LaunchConfig config({(threads + block - 1) / block, 1, 1}, {block, 1, 1});
        emu::LaunchStats stats;
        if (auto e = device_.launch(kernel, config, params, &stats)) {
            fail(e);
            break;
        }
        result.warp_instructions = stats.warp_instructions;
        result.thread_instructions = stats.thread_instructions;
        result.redundant = stats.redundant_block_executions();
        result.output.resize(size_t(threads) * words_out);
        device_.memcpy_dtoh(result.output.data(), out, out_bytes);
    } while (false);
    if (in) device_.free(in);
    if (out) device_.free(out);
    if (module) device_.unload_module(module);
    return result;
}

namespace {

Evaluation evaluate_here(Harness& harness, const std::string& ptx,
                         const Configuration& configuration, const std::vector<uint32_t>& input,
                         uint32_t threads, uint32_t words_out) {
    Evaluation e;
    e.variant = transform(ptx, configuration);
    if (e.variant.error.empty())
        e.execution = harness.run(e.variant.ptx, input, threads, words_out);
    return e;
}

bool write_all(int fd, const std::string& text) {
    for (size_t done = 0; done < text.size();) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n <= 0) return false;
        done += size_t(n);
    }
    return true;
}

} // namespace

Evaluation evaluate(Harness& harness, const std::string& ptx, const Configuration& configuration,
                    const std::vector<uint32_t>& input, uint32_t threads, uint32_t words_out,
                    bool isolate) {
    if (!isolate) return evaluate_here(harness, ptx, configuration, input, threads, words_out);
    int fds[2];
    if (::pipe(fds) != 0)
        return evaluate_here(harness, ptx, configuration, input, threads, words_out);
    std::cout.flush();
    std::cerr.flush();
    const pid_t child = ::fork();
    if (child < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return evaluate_here(harness, ptx, configuration, input, threads, words_out);
    }
    if (child == 0) {
        ::close(fds[0]);
        ::alarm(120);
        Evaluation e;
        e.variant = transform(ptx, configuration);
        nlohmann::json v{{"ptx", e.variant.ptx},
                         {"static", e.variant.static_instructions},
                         {"class", int(e.variant.klass)},
                         {"shape", e.variant.shape},
                         {"error", e.variant.error}};
        bool ok = write_all(fds[1], v.dump() + "\n");
        if (ok && e.variant.error.empty()) {
            e.execution = harness.run(e.variant.ptx, input, threads, words_out);
            nlohmann::json x{{"output", e.execution.output},
                             {"warp", e.execution.warp_instructions},
                             {"thread", e.execution.thread_instructions},
                             {"redundant", e.execution.redundant},
                             {"error", e.execution.error}};
            ok = write_all(fds[1], x.dump() + "\n");
        }
        ::_exit(ok ? 0 : 3);
    }
    ::close(fds[1]);
    std::string data;
    char buffer[65536];
    for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) != 0;) {
        if (n < 0) {
            if (errno == EINTR) continue;
            break;
        }
        data.append(buffer, size_t(n));
    }
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    const size_t first = data.find('\n');
    const bool have_variant = first != std::string::npos;
    const size_t second = have_variant ? data.find('\n', first + 1) : std::string::npos;
    Evaluation e;
    if (have_variant) {
        const auto v = nlohmann::json::parse(data.substr(0, first));
        e.variant.ptx = v["ptx"];
        e.variant.static_instructions = v["static"];
        e.variant.klass = analysis::StructuralClass(v["class"].get<int>());
        e.variant.shape = v["shape"];
        e.variant.error = v["error"];
    }
    if (second != std::string::npos) {
        const auto x = nlohmann::json::parse(data.substr(first + 1, second - first - 1));
        e.execution.output = x["output"].get<std::vector<uint32_t>>();
        e.execution.warp_instructions = x["warp"];
        e.execution.thread_instructions = x["thread"];
        e.execution.redundant = x["redundant"];
        e.execution.error = x["error"];
    }
    const bool died = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    if (died) {
        const std::string how =
            WIFSIGNALED(status) ? (WTERMSIG(status) == SIGALRM
                                       ? std::string("timed out")
                                       : fmt::format("crashed (signal {}: {})", WTERMSIG(status),
                                                     ::strsignal(WTERMSIG(status))))
                                : fmt::format("exited with status {}", WEXITSTATUS(status));
        if (!have_variant)
            e.variant.error = "the pipeline " + how;
        else if (e.variant.error.empty())
            e.execution.error = "the emulator " + how;
    }
    return e;
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
