// Front-end throughput: parse + CFG construction + structural classification of whole PTX
// modules, set beside the time ptxas takes to compile the same files, taken in the same run; and
// what the IR costs in memory: the size of its records and the bytes parsing allocates per
// statement.
#include "bench/common/ptxas_timer.hpp"
#include "bench/frontend/allocation_counter.hpp"
#include "passes/analysis/structure.hpp"
#include "ptx/cfg.hpp"
#include "ptx/parser.hpp"
#include "tools/common/files.hpp"
#include "tools/common/table.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <malloc.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace {

using cfr::bench::Clock;
using cfr::bench::seconds_since;
using cfr::bench::time_ptxas;

// Seconds spent in each step of the front end. The CFGs are planned as the shim plans them, each
// as soon as its function is parsed (ptx::plan_while_parsing), so `cfg` is what parsing with
// planning takes beyond parsing alone. `fill` (moving a body's statements into its blocks) is
// timed apart: the passes pay it only for the functions they read in blocks.
struct Phases {
    double parse = 0, cfg = 0, classify = 0, fill = 0;

    double total() const { return parse + cfg + classify; }
};

// One pass of the front end over a module, timed step by step; `blocks` keeps the work used.
Phases front_end(const std::string& text, const std::string& name, size_t& blocks) {
    Phases phases;
    auto start = Clock::now();
    {
        const auto parsed_alone = cfr::ptx::parse(text, name);
        phases.parse = seconds_since(start);
        blocks += parsed_alone.items.size();
    }
    std::vector<cfr::ptx::CfgPlan> plans;
    start = Clock::now();
    auto module = cfr::ptx::parse(text, name, cfr::ptx::plan_while_parsing(plans));
    phases.cfg = std::max(0.0, seconds_since(start) - phases.parse);
    for (auto& plan : plans) {
        if (!plan.cfg) continue;
        start = Clock::now();
        const auto structure =
            cfr::analysis::classify(plan.cfg->graph(), plan.cfg->entry(), plan.cfg->exit());
        phases.classify += seconds_since(start);
        start = Clock::now();
        cfr::ptx::fill_cfg(*plan.cfg, std::get<cfr::ptx::Function>(module.items[plan.item]),
                           plan.starts);
        phases.fill += seconds_since(start);
        blocks += plan.cfg->blocks.size() + plan.cfg->blocks.back().statements.size() +
                  static_cast<size_t>(structure.cyclic);
    }
    return phases;
}

// The run with the best total of `repeat` runs.
Phases time_front_end(const std::string& text, const std::string& name, int repeat) {
    Phases best;
    best.parse = 1e30;
    size_t blocks = 0;
    for (int i = 0; i < repeat; ++i) {
        const Phases run = front_end(text, name, blocks);
        if (run.total() < best.total()) best = run;
    }
    volatile size_t sink = blocks;
    (void)sink;
    return best;
}

// The best of `runs` parses into memory the process has not touched: before each, the heap gives
// its free pages back to the system (glibc's malloc_trim), so the parse pays the first touch of
// every page it writes, as the shim's one parse of a module does in a heap that never held one.
// The runs above reuse the pages the previous run freed.
double time_parse_in_new_memory(const std::string& text, const std::string& name, int runs) {
    double best = 1e30;
    for (int i = 0; i < runs; ++i) {
        malloc_trim(0);
        const auto start = Clock::now();
        const auto module = cfr::ptx::parse(text, name);
        best = std::min(best, seconds_since(start));
    }
    return best;
}

size_t statements_in(const std::vector<cfr::ptx::Statement>& body) {
    size_t n = body.size();
    for (const auto& s : body)
        if (const auto* scope = std::get_if<cfr::ptx::Scope>(&s))
            n += statements_in(scope->statements);
    return n;
}

// What one parse of `text` allocates, per statement of the module.
struct Memory {
    size_t statements = 0;
    double allocations = 0, bytes = 0; // per statement
};

Memory parse_memory(const std::string& text, const std::string& name) {
    cfr::bench::CountedAllocations counter;
    const auto module = cfr::ptx::parse(text, name);
    const cfr::bench::Allocations made = counter.so_far();
    Memory m;
    for (const auto& item : module.items)
        if (const auto* f = std::get_if<cfr::ptx::Function>(&item); f && f->body)
            m.statements += statements_in(*f->body);
    const double n = static_cast<double>(std::max<size_t>(m.statements, 1));
    m.allocations = static_cast<double>(made.count) / n;
    m.bytes = static_cast<double>(made.bytes) / n;
    return m;
}

void print_record_sizes(std::ostream& out) {
    using namespace cfr::ptx;
    out << fmt::format(
        "record sizes (bytes): Statement {}, Instruction {}, Operand {}, Variable {}, "
        "Words {}, Label {}, Directive {}\n",
        sizeof(Statement), sizeof(Instruction), sizeof(Operand), sizeof(Variable), sizeof(Words),
        sizeof(Label), sizeof(Directive));
}

std::string ms(double seconds) {
    return fmt::format("{:.3f}", seconds * 1e3);
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"bench_frontend: parse + CFG + classify throughput on PTX files, beside ptxas"};
    std::vector<std::string> files;
    std::string ptxas = "/usr/local/cuda/bin/ptxas";
    std::string json_path;
    int repeat = 5;
    int ptxas_repeat = 3;
    app.add_option("files", files, "PTX files to measure")->required();
    app.add_option("--ptxas", ptxas, "ptxas to compare with");
    app.add_option("--repeat", repeat, "front-end runs per file (the best is kept)");
    app.add_option("--ptxas-repeat", ptxas_repeat, "ptxas runs per file (the best is kept)");
    app.add_option("--json", json_path, "also write the results as JSON to this file");
    CLI11_PARSE(app, argc, argv);

    using A = cfr::tools::Table::Align;
    cfr::tools::Table table({"file", "KiB", "parse ms", "CFG ms", "classify ms", "front end ms",
                             "MB/s", "ptxas ms", "front end/ptxas", "fill ms",
                             "new-memory parse ms", "allocs/stmt", "bytes/stmt"},
                            {A::Left, A::Right, A::Right, A::Right, A::Right, A::Right, A::Right,
                             A::Right, A::Right, A::Right, A::Right, A::Right, A::Right});
    auto results = nlohmann::json::array();
    Phases all;
    double all_new_memory = 0;
    double total_ptxas = 0, total_bytes = 0, total_allocations = 0, total_allocated = 0;
    size_t total_statements = 0;
    try {
        for (const auto& file : files) {
            std::cerr << "bench_frontend: " << file << '\n';
            const std::string text = cfr::tools::read_file(file);
            const Phases phases = time_front_end(text, file, repeat);
            const double front = phases.total();
            const double native = time_ptxas(ptxas, file, ptxas_repeat);
            const double bytes = static_cast<double>(text.size());
            const Memory memory = parse_memory(text, file);
            const double new_memory = time_parse_in_new_memory(text, file, std::min(repeat, 5));
            all_new_memory += new_memory;
            total_statements += memory.statements;
            total_allocations += memory.allocations * static_cast<double>(memory.statements);
            total_allocated += memory.bytes * static_cast<double>(memory.statements);
            all.parse += phases.parse;
            all.cfg += phases.cfg;
            all.classify += phases.classify;
            all.fill += phases.fill;
            total_ptxas += native;
            total_bytes += bytes;
            table.add_row(
                {std::filesystem::path(file).filename().string(),
                 fmt::format("{:.0f}", bytes / 1024), ms(phases.parse), ms(phases.cfg),
                 ms(phases.classify), ms(front), fmt::format("{:.1f}", bytes / front / 1e6),
                 fmt::format("{:.1f}", native * 1e3), fmt::format("{:.2f}%", 100 * front / native),
                 ms(phases.fill), ms(new_memory), fmt::format("{:.2f}", memory.allocations),
                 fmt::format("{:.0f}", memory.bytes)});
            results.push_back({{"file", file},
                               {"bytes", text.size()},
                               {"front_end_seconds", front},
                               {"parse_seconds", phases.parse},
                               {"cfg_seconds", phases.cfg},
                               {"classify_seconds", phases.classify},
                               {"fill_seconds", phases.fill},
                               {"new_memory_parse_seconds", new_memory},
                               {"ptxas_seconds", native},
                               {"ratio", front / native},
                               {"statements", memory.statements},
                               {"allocations_per_statement", memory.allocations},
                               {"allocated_bytes_per_statement", memory.bytes}});
        }
    } catch (const std::exception& e) {
        std::cerr << "bench_frontend: error: " << e.what() << '\n';
        return 1;
    }
    table.add_rule();
    const double total_front = all.total();
    table.add_row(
        {"all", fmt::format("{:.0f}", total_bytes / 1024), ms(all.parse), ms(all.cfg),
         ms(all.classify), ms(total_front), fmt::format("{:.1f}", total_bytes / total_front / 1e6),
         fmt::format("{:.1f}", total_ptxas * 1e3),
         fmt::format("{:.2f}%", 100 * total_front / total_ptxas), ms(all.fill), ms(all_new_memory),
         fmt::format("{:.2f}", total_allocations / double(std::max<size_t>(total_statements, 1))),
         fmt::format("{:.0f}", total_allocated / double(std::max<size_t>(total_statements, 1)))});
    table.print(std::cout);
    print_record_sizes(std::cout);
    std::cout << "goal: front end at most 0.25% of ptxas time on every file, 200 MB/s on the "
                 "large module\n";
    if (!json_path.empty()) {
        nlohmann::json doc = {{"benchmark", "frontend"},
                              {"files", results},
                              {"total_ratio", total_front / total_ptxas},
                              {"sizeof",
                               {{"statement", sizeof(cfr::ptx::Statement)},
                                {"instruction", sizeof(cfr::ptx::Instruction)},
                                {"operand", sizeof(cfr::ptx::Operand)},
                                {"variable", sizeof(cfr::ptx::Variable)}}}};
        cfr::tools::write_file(json_path, doc.dump(2) + "\n");
    }
    return 0;
}
