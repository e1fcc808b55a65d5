// Module compilation and its per-kernel statistics.
#include "runtime/compile.hpp"

#include "ptx/cfg.hpp"
#include "ptx/invariant.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>

namespace cfr::runtime {

namespace {

// A report line as one cache-payload field: no tabs, no newlines.
std::string one_line(std::string text) {
    std::replace_if(
        text.begin(), text.end(), [](char c) { return c == '\t' || c == '\n'; }, ' ');
    return text;
}

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

int count_blocks(const ptx::CfgPlan& plan) {
    return plan.cfg ? static_cast<int>(plan.cfg->blocks.size()) : 0;
}

std::vector<ptx::Function*> functions_of(ptx::Module& m) {
    std::vector<ptx::Function*> out;
    for (auto& item : m.items)
        if (auto* f = std::get_if<ptx::Function>(&item); f && f->body) out.push_back(f);
    return out;
}

// The passes whose reports list the function among those they changed, in pipeline order.
std::vector<std::string> passes_that_changed(const std::vector<passes::PassReport>& reports,
                                             const std::string& function) {
    std::vector<std::string> out;
    for (const auto& r : reports)
        if (std::find(r.functions_changed.begin(), r.functions_changed.end(), function) !=
            r.functions_changed.end())
            out.push_back(r.pass);
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
    struct Counts {
        int blocks, instructions;
    };
    std::vector<Counts> before; // of each function with a body, counted as it is parsed
    std::vector<ptx::CfgPlan> plans;
    const ptx::FunctionParsed plan = ptx::plan_while_parsing(plans);
    ptx::Module module;
    try {
        module = ptx::parse(text, module_name, [&](const ptx::Function& f, size_t item) {
            plan(f, item);
            before.push_back({count_blocks(plans.back()), count_instructions(*f.body)});
        });
    } catch (const std::exception& e) {
        throw CompileError(fmt::format("module {}: PTX does not parse: {}", module_name, e.what()));
    }
    std::vector<passes::PassReport> reports;
    try {
        if (options.inject_pass_fault)
            throw std::runtime_error("pass failed (injected by CFRJIT_TEST_FAULT=pass)");
        CFR_INVARIANT(!options.inject_invariant_fault,
                      "no invariant is broken (CFRJIT_TEST_FAULT=invariant breaks this one)");
        // Kernels outside CFRJIT_KERNELS never enter the passes.
        reports = passes::run_pipeline(module, options.pipeline, options.verify, options.selects,
                                       std::move(plans));
    } catch (const passes::VerificationError& e) {
        throw CompileError(e.what());
    } catch (const std::exception& e) {
        throw CompileError(fmt::format("module {} (kernels {}): pipeline '{}' failed: {}",
                                       module_name, kernel_list(module),
                                       passes::spelling(options.pipeline), e.what()));
    }
    for (const auto& r : reports) {
        std::string counters;
        for (const auto& [what, n] : r.counters)
            if (n != 0) counters += fmt::format("{}{} {}", counters.empty() ? "" : ", ", n, what);
        out.pass_summaries.push_back(
            fmt::format("{}: {}", r.pass, counters.empty() ? "no change" : counters));
        for (const auto& d : r.decisions)
            out.decisions.push_back(fmt::format("{}: {}", r.pass, one_line(d)));
    }

    const auto after = functions_of(module);
    for (size_t i = 0; i < after.size() && i < before.size(); ++i) {
        const ptx::Function& f = *after[i];
        KernelChange k;
        k.name = f.name;
        k.entry = f.is_entry;
        k.selected = !options.selects || options.selects(f.name);
        k.blocks_before = k.blocks_after = before[i].blocks;
        k.instructions_before = k.instructions_after = before[i].instructions;
        k.changed_by = passes_that_changed(reports, f.name);
        if (!k.changed_by.empty()) {
            k.blocks_after = count_blocks(ptx::plan_function_cfg(f, 0));
            k.instructions_after = count_instructions(*f.body);
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

// The cache payload: tab-separated metadata lines, a line "ptx", then the PTX text. Names and
// pass spellings hold neither tabs nor newlines.
std::string CompiledModule::serialize() const {
    std::string out = fmt::format("pipeline_ms\t{}\n", pipeline_ms);
    for (const auto& p : pass_summaries)
        out += fmt::format("pass\t{}\n", p);
    for (const auto& d : decisions)
        out += fmt::format("decision\t{}\n", d);
    for (const auto& k : kernels) {
        out += fmt::format("kernel\t{}\t{}\t{}\t{}\t{}\t{}\t{}", k.entry ? 1 : 0,
                           k.selected ? 1 : 0, k.blocks_before, k.blocks_after,
                           k.instructions_before, k.instructions_after, k.name);
        for (const auto& c : k.changed_by)
            out += "\t" + c;
        out += "\n";
    }
    out += "ptx\n";
    out += ptx;
    return out;
}

namespace {

std::vector<std::string_view> fields(std::string_view line) {
    std::vector<std::string_view> out;
    size_t start = 0;
    while (true) {
        const size_t tab = line.find('\t', start);
        out.push_back(line.substr(start, tab == std::string_view::npos ? tab : tab - start));
        if (tab == std::string_view::npos) return out;
        start = tab + 1;
    }
}

int to_int(std::string_view s) {
    int v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size())
        throw CompileError(fmt::format("cache payload: '{}' is not a number", s));
    return v;
}

} // namespace

CompiledModule CompiledModule::deserialize(std::string_view payload) {
    CompiledModule m;
    size_t pos = 0;
    while (true) {
        const size_t nl = payload.find('\n', pos);
        if (nl == std::string_view::npos) throw CompileError("cache payload without PTX");
        const std::string_view line = payload.substr(pos, nl - pos);
        pos = nl + 1;
        if (line == "ptx") break;
        const auto f = fields(line);
        if (f[0] == "pipeline_ms" && f.size() == 2) {
            m.pipeline_ms = std::strtod(std::string(f[1]).c_str(), nullptr);
        } else if (f[0] == "pass" && f.size() == 2) {
            m.pass_summaries.emplace_back(f[1]);
        } else if (f[0] == "decision" && f.size() == 2) {
            m.decisions.emplace_back(f[1]);
        } else if (f[0] == "kernel" && f.size() >= 8) {
            KernelChange k;
            k.entry = f[1] == "1";
            k.selected = f[2] == "1";
            k.blocks_before = to_int(f[3]);
            k.blocks_after = to_int(f[4]);
            k.instructions_before = to_int(f[5]);
            k.instructions_after = to_int(f[6]);
            k.name = std::string(f[7]);
            for (size_t i = 8; i < f.size(); ++i)
                k.changed_by.emplace_back(f[i]);
            m.kernels.push_back(std::move(k));
        } else {
            throw CompileError(fmt::format("cache payload: unexpected line '{}'", line));
        }
    }
    m.ptx = std::string(payload.substr(pos));
    return m;
}

} // namespace cfr::runtime
