// Module compilation and its per-kernel statistics.
#include "runtime/compile.hpp"

#include "ptx/cfg.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <optional>

namespace cfr::runtime {

namespace {

int count_instructions(const std::vector<ptx::Statement>& statements) {
    int n = 0;
    for (const auto& s : statements) {
        if (std::holds_alternative<ptx::Instruction>(s))
            ++n;
        else if (const auto* scope = std::get_if<ptx::Scope>(&s))
            n += count_instructions(scope->statements);
    }
    return n;
}

int count_blocks(const ptx::Function& f) {
    try {
        return static_cast<int>(ptx::build_cfg(f).blocks.size());
    } catch (const ptx::CfgError&) {
        return 0;
    }
}

std::vector<ptx::Function*> functions_of(ptx::Module& m) {
    std::vector<ptx::Function*> out;
    for (auto& item : m.items)
        if (auto* f = std::get_if<ptx::Function>(&item); f && f->body) out.push_back(f);
    return out;
}

std::string kernel_list(ptx::Module& m) {
    std::string out;
    for (const auto* f : functions_of(m))
        out += (out.empty() ? "" : ", ") + f->name;
    return out.empty() ? "(none)" : out;
}

} // namespace

CompiledModule compile_module(std::string_view text, std::string_view module_name,
                              const CompileOptions& options) {
    const auto start = std::chrono::steady_clock::now();
    CompiledModule out;
    ptx::Module module;
    try {
        module = ptx::parse(text, module_name);
    } catch (const std::exception& e) {
        throw CompileError(fmt::format("module {}: PTX does not parse: {}", module_name, e.what()));
    }
    // Counted before the passes run; a copy is kept only when something may change.
    struct Counts {
        int blocks, instructions;
    };
    std::vector<Counts> before;
    for (const auto* f : functions_of(module))
        before.push_back({count_blocks(*f), count_instructions(*f->body)});
    std::optional<ptx::Module> original;
    if (!options.pipeline.empty()) original = module;
    std::vector<passes::PassReport> reports;
    try {
        if (options.inject_pass_fault)
            throw std::runtime_error("pass failed (injected by CFRJIT_TEST_FAULT=pass)");
        reports = passes::run_pipeline(module, options.pipeline);
    } catch (const std::exception& e) {
        throw CompileError(fmt::format("module {} (kernels {}): pipeline '{}' failed: {}",
                                       module_name, kernel_list(module),
                                       passes::spelling(options.pipeline), e.what()));
    }
    std::vector<std::string> changed_passes;
    for (const auto& r : reports) {
        if (r.changed) changed_passes.push_back(r.pass);
        std::string counters;
        for (const auto& [what, n] : r.counters)
            if (n != 0) counters += fmt::format("{}{} {}", counters.empty() ? "" : ", ", n, what);
        out.pass_summaries.push_back(
            fmt::format("{}: {}", r.pass, counters.empty() ? "no change" : counters));
    }

    // Kernels outside CFRJIT_KERNELS keep their original body.
    auto after = functions_of(module);
    std::vector<ptx::Function*> originals;
    if (original) originals = functions_of(*original);
    for (size_t i = 0; i < after.size() && i < before.size(); ++i) {
        ptx::Function& f = *after[i];
        KernelChange k;
        k.name = f.name;
        k.entry = f.is_entry;
        k.selected = !options.selects || options.selects(f.name);
        k.blocks_before = k.blocks_after = before[i].blocks;
        k.instructions_before = k.instructions_after = before[i].instructions;
        if (original && i < originals.size() && !(f == *originals[i])) {
            if (!k.selected) {
                f = *originals[i];
            } else {
                k.blocks_after = count_blocks(f);
                k.instructions_after = count_instructions(*f.body);
                k.changed_by = changed_passes;
            }
        }
        out.kernels.push_back(std::move(k));
    }
    try {
        out.ptx = ptx::print(module);
    } catch (const std::exception& e) {
        throw CompileError(fmt::format("module {}: printing failed: {}", module_name, e.what()));
    }
    out.pipeline_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return out;
}

std::string CompiledModule::serialize() const {
    nlohmann::json meta;
    meta["pipeline_ms"] = pipeline_ms;
    meta["passes"] = pass_summaries;
    auto& ks = meta["kernels"] = nlohmann::json::array();
    for (const auto& k : kernels)
        ks.push_back({{"name", k.name},
                      {"entry", k.entry},
                      {"selected", k.selected},
                      {"blocks", {k.blocks_before, k.blocks_after}},
                      {"instructions", {k.instructions_before, k.instructions_after}},
                      {"changed_by", k.changed_by}});
    std::string out = meta.dump();
    out += '\n';
    out += ptx;
    return out;
}

CompiledModule CompiledModule::deserialize(std::string_view payload) {
    const auto nl = payload.find('\n');
    if (nl == std::string_view::npos) throw CompileError("cache payload without metadata");
    CompiledModule m;
    try {
        const auto meta = nlohmann::json::parse(payload.substr(0, nl));
        m.pipeline_ms = meta.at("pipeline_ms").get<double>();
        m.pass_summaries = meta.at("passes").get<std::vector<std::string>>();
        for (const auto& k : meta.at("kernels")) {
            KernelChange c;
            c.name = k.at("name").get<std::string>();
            c.entry = k.at("entry").get<bool>();
            c.selected = k.at("selected").get<bool>();
            c.blocks_before = k.at("blocks")[0].get<int>();
            c.blocks_after = k.at("blocks")[1].get<int>();
            c.instructions_before = k.at("instructions")[0].get<int>();
            c.instructions_after = k.at("instructions")[1].get<int>();
            c.changed_by = k.at("changed_by").get<std::vector<std::string>>();
            m.kernels.push_back(std::move(c));
        }
    } catch (const nlohmann::json::exception& e) {
        throw CompileError(fmt::format("cache payload metadata: {}", e.what()));
    }
    m.ptx = std::string(payload.substr(nl + 1));
    return m;
}

} // namespace cfr::runtime
