// cfr-synth: the synthetic-CFG experiment of seed 000 section V-C (Fig. 6) and a random-CFG
// differential tester for the restructuring and linearization configurations.
#include "tools/cfr-synth/experiment.hpp"
#include "tools/cfr-synth/fuzz.hpp"
#include "tools/cfr-synth/harness.hpp"
#include "tools/cfr-synth/ptx_generator.hpp"
#include "tools/cfr-synth/report.hpp"
#include "tools/common/files.hpp"
#include "tools/common/table.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace {

using namespace cfr::synth;

struct CommonOptions {
    std::vector<std::string> configurations;
    bool quiet = false;
    bool no_isolate = false;
};

std::vector<Configuration> configurations_or_note(const CommonOptions& common) {
    std::vector<std::string> missing;
    auto configurations = select_configurations(common.configurations, missing);
    for (const auto& name : missing)
        std::cerr << "cfr-synth: note: configuration " << name
                  << " is not available in this build (its passes are not registered)\n";
    return configurations;
}

void print_counts(std::ostream& out, uint32_t max_nodes, nlohmann::json* json) {
    using Align = cfr::tools::Table::Align;
    for (auto mode : {Enumeration::Isomorphism, Enumeration::Labelled}) {
        const auto counts = count_graphs(max_nodes, mode);
        out << fmt::format("acyclic binary-branch CFGs, enumeration: {}\n", to_string(mode));
        cfr::tools::Table table(
            {"nodes", "CFGs", "minimal", "minimal, not tail-structured", "minimal, not SESE",
             "cumulative (not tail-structured)"},
            {Align::Right, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right});
        uint64_t cumulative = 0;
        auto rows = nlohmann::json::array();
        for (const auto& c : counts) {
            cumulative += c.minimal_not_tail_structured;
            table.add_row({std::to_string(c.nodes), std::to_string(c.graphs),
                           std::to_string(c.minimal), std::to_string(c.minimal_not_tail_structured),
                           std::to_string(c.minimal_not_sese), std::to_string(cumulative)});
            rows.push_back({{"nodes", c.nodes},
                            {"cfgs", c.graphs},
                            {"minimal", c.minimal},
                            {"minimal_not_tail_structured", c.minimal_not_tail_structured},
                            {"minimal_not_sese", c.minimal_not_sese},
                            {"cumulative_not_tail_structured", cumulative}});
        }
        table.print(out);
        out << '\n';
        if (json) (*json)[std::string(to_string(mode))] = rows;
    }
    out << "seed 000 reports 1447 minimal unstructured CFGs of up to 7 nodes.\n";
}

struct RunOptions {
    uint32_t nodes = 7;
    std::string enumeration = "labelled";
    std::string unstructured = "not-tail-structured";
    std::string csv, json;
    uint32_t threads = 32;
    std::vector<std::string> no_redundant_after;
    int64_t expect_cfgs = -1;
};

Enumeration parse_enumeration(const std::string& text) {
    return text == "labelled" ? Enumeration::Labelled : Enumeration::Isomorphism;
}

int run_command(const RunOptions& options, const CommonOptions& common) {
    const auto configurations = configurations_or_note(common);
    const auto mode = parse_enumeration(options.enumeration);
    const auto criterion = options.unstructured == "not-sese" ? Unstructured::NotSese
                                                              : Unstructured::NotTailStructured;
    const auto graphs = select_graphs(options.nodes, mode, criterion);
    std::cerr << fmt::format("cfr-synth: {} minimal {} CFGs of up to {} nodes ({}), {} "
                             "configurations\n",
                             graphs.size(), options.unstructured, options.nodes, to_string(mode),
                             configurations.size());
    const auto result = run_experiment(
        graphs, configurations, {options.threads, !common.quiet, !common.no_isolate}, std::cerr);
    const auto summaries = summarize(result.rows);
    print_summary(std::cout, summaries);

    int status = 0;
    if (result.failures) {
        std::cout << fmt::format("FAILED: {} failures (mismatches, errors or results that are "
                                 "not tail-structured); see the messages above\n",
                                 result.failures);
        status = 1;
    }
    if (options.expect_cfgs >= 0 && int64_t(graphs.size()) != options.expect_cfgs) {
        std::cout << fmt::format("FAILED: {} CFGs selected, expected {}\n", graphs.size(),
                                 options.expect_cfgs);
        status = 1;
    }
    for (const auto& name : options.no_redundant_after) {
        bool found = false;
        for (const auto& s : summaries) {
            if (s.configuration != name) continue;
            found = true;
            if (s.graphs_redundant_after) {
                std::cout << fmt::format("FAILED: {} CFGs keep redundant executions after {}\n",
                                         s.graphs_redundant_after, name);
                status = 1;
            }
        }
        if (!found) std::cout << fmt::format("note: configuration {} did not run\n", name);
    }
    if (!options.csv.empty()) {
        std::ostringstream csv;
        write_csv(csv, result.rows);
        cfr::tools::write_file(options.csv, csv.str());
    }
    if (!options.json.empty()) {
        nlohmann::json json;
        json["nodes"] = options.nodes;
        json["enumeration"] = std::string(to_string(mode));
        json["unstructured"] = options.unstructured;
        json["cfgs"] = graphs.size();
        json["threads"] = options.threads;
        json["overhead_definition"] = "warp instructions of the restructured kernel minus those "
                                      "of the original";
        json["failures"] = result.failures;
        json["summary"] = to_json(summaries);
        json["rows"] = rows_json(result.rows);
        cfr::tools::write_file(options.json, json.dump(1) + "\n");
    }
    return status;
}

int random_command(FuzzOptions options, const CommonOptions& common, const std::string& json) {
    const auto configurations = configurations_or_note(common);
    options.progress = !common.quiet;
    options.isolate = !common.no_isolate;
    if (options.threads == 0 || options.threads % 32)
        throw std::invalid_argument("--threads must be a positive multiple of 32");
    const auto r = run_fuzz(options, configurations, std::cerr);
    std::cout << fmt::format("random CFGs: seed {}, {} graphs, {} kernel runs, {} configurations\n",
                             options.seed, r.graphs, r.runs, configurations.size());
    for (const auto& [klass, count] : r.classes)
        std::cout << fmt::format("  {:28} {}\n", klass, count);
    std::cout << fmt::format("redundant block executions: original {}", r.redundant_original);
    for (const auto& [name, count] : r.redundant_after)
        std::cout << fmt::format(", {} {}", name, count);
    std::cout << fmt::format("\nmismatches {}, errors {}, not tail-structured {}, linearizations "
                             "not of the promised shape {}, ptxas checked {} rejected {}\n",
                             r.mismatches, r.errors, r.not_tail_structured, r.not_as_promised,
                             r.ptxas_checked, r.ptxas_failures);
    if (!json.empty()) {
        nlohmann::json j{{"seed", options.seed},
                         {"graphs", r.graphs},
                         {"runs", r.runs},
                         {"configurations", nlohmann::json::array()},
                         {"classes", r.classes},
                         {"redundant_original", r.redundant_original},
                         {"redundant_after", r.redundant_after},
                         {"mismatches", r.mismatches},
                         {"errors", r.errors},
                         {"not_tail_structured", r.not_tail_structured},
                         {"not_as_promised", r.not_as_promised},
                         {"ptxas_checked", r.ptxas_checked},
                         {"ptxas_failures", r.ptxas_failures}};
        for (const auto& c : configurations)
            j["configurations"].push_back({{"name", c.name}, {"pipeline", c.pipeline}});
        cfr::tools::write_file(json, j.dump(1) + "\n");
    }
    if (r.failures()) {
        std::cout << fmt::format("FAILED: {} failures; see the messages above\n", r.failures());
        return 1;
    }
    return 0;
}

int show_command(uint32_t nodes, const std::string& enumeration, uint32_t id,
                 const CommonOptions& common) {
    const auto graphs =
        select_graphs(nodes, parse_enumeration(enumeration), Unstructured::NotTailStructured);
    if (id >= graphs.size())
        throw std::invalid_argument(fmt::format("no CFG {} (there are {})", id, graphs.size()));
    const auto& g = graphs[id].graph;
    const std::string ptx = generate_ptx(g, {Conditions::Decisions, {}});
    const auto input = decision_words(g, 32);
    std::cout << fmt::format("// CFG {}: {} ({}), {} paths\n", id, g.spelling(),
                             cfr::analysis::to_string(graphs[id].klass), count_paths(g));
    Harness harness;
    std::vector<Configuration> all{{"original", "", false, false}};
    for (auto& c : configurations_or_note(common))
        all.push_back(c);
    for (const auto& c : all) {
        const auto evaluation = evaluate(harness, ptx, c, input, 32, 1, true);
        const auto& variant = evaluation.variant;
        const auto& run = evaluation.execution;
        std::cout << fmt::format("// ===== {} ({})\n", c.name, c.pipeline);
        if (!variant.error.empty()) {
            std::cout << "// error: " << variant.error << '\n';
            continue;
        }
        std::cout << fmt::format("// class {}, {} static instructions, {} warp instructions, "
                                 "{} redundant block executions{}\n",
                                 cfr::analysis::to_string(variant.klass),
                                 variant.static_instructions, run.warp_instructions, run.redundant,
                                 run.error.empty() ? "" : ", error: " + run.error);
        std::cout << variant.ptx;
    }
    return 0;
}

std::string configuration_help() {
    std::string text = "configuration to run (repeatable; default: all available): ";
    for (const auto& c : known_configurations())
        text += fmt::format("{} = \"{}\"; ", c.name, c.pipeline);
    text += "by name only: ";
    for (const auto& c : extra_configurations())
        text += fmt::format("{} = \"{}\"; ", c.name, c.pipeline);
    return text + "or NAME=PIPELINE for a custom one";
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"cfr-synth: the synthetic-CFG experiment of seed 000 section V-C (Fig. 6) and a "
                 "random-CFG differential tester.\n\n"
                 "`run` enumerates every acyclic CFG with binary branches of up to N nodes, keeps "
                 "the minimal (Definition 4) unstructured ones, turns each into a PTX kernel "
                 "whose every branch diverges within a warp, and runs it unrestructured and after "
                 "each restructuring and linearization configuration on the emulator: outputs "
                 "must match exactly, and each result must have its configuration's shape "
                 "(tail-structured, no unstructured edge, or one guarded sequence); "
                 "redundant block executions and the dynamic instruction overhead (warp "
                 "instructions, restructured minus original) are tabulated by redundancy group "
                 "as in Fig. 6.\n"
                 "`random` generates random CFGs with loops (nested, multi-exit, irreducible) "
                 "whose branches follow random per-lane data with bounded trip counts, and "
                 "checks every configuration against the original.\n"
                 "`count` prints the enumeration counts; `show` prints one CFG's kernels.\n"};
    app.footer("Examples:\n"
               "  cfr-synth count -n 7\n"
               "  cfr-synth run -n 7 --csv synth.csv --json synth.json\n"
               "  cfr-synth run -n 5 -c loop+branch --no-redundant-after loop+branch\n"
               "  cfr-synth random --seed 1 --seconds 60 --ptxas /usr/local/cuda/bin/ptxas\n"
               "  cfr-synth random --seed 7 --count 300 -c linearize -c blockip\n"
               "  cfr-synth show -n 5 3 -c loop+branch");
    app.require_subcommand(1);
    CommonOptions common;
    const auto add_common = [&](CLI::App* sub) {
        sub->add_option("-c,--config", common.configurations, configuration_help());
        sub->add_flag("-q,--quiet", common.quiet, "no progress messages");
        sub->add_flag("--no-isolate", common.no_isolate,
                      "run passes and kernels in this process (faster; a crash in a pass or the "
                      "emulator then ends the run instead of being reported as a failure)");
    };

    RunOptions run;
    auto* run_cmd = app.add_subcommand("run", "the synthetic-CFG experiment (Fig. 6)");
    run_cmd->add_option("-n,--nodes", run.nodes, "largest number of nodes (1-9)")
        ->check(CLI::Range(1, 9))
        ->capture_default_str();
    run_cmd
        ->add_option("--enumeration", run.enumeration,
                     "labelled: each adjacency matrix over the fixed topological numbering once, "
                     "as seed 000 enumerated incidence matrices; isomorphism: each graph once")
        ->check(CLI::IsMember({"isomorphism", "labelled"}))
        ->capture_default_str();
    run_cmd
        ->add_option("--unstructured", run.unstructured,
                     "which graphs count as unstructured (identical for acyclic graphs)")
        ->check(CLI::IsMember({"not-tail-structured", "not-sese"}))
        ->capture_default_str();
    run_cmd->add_option("--csv", run.csv, "write one row per CFG and configuration");
    run_cmd->add_option("--json", run.json, "write the summary and the rows as JSON");
    run_cmd->add_option("--threads", run.threads, "threads per launch (multiple of 32)")
        ->check(CLI::Range(32, 4096))
        ->capture_default_str();
    run_cmd->add_option("--no-redundant-after", run.no_redundant_after,
                        "fail if any CFG keeps redundant block executions after this "
                        "configuration (repeatable)");
    run_cmd->add_option("--expect-cfgs", run.expect_cfgs,
                        "fail unless exactly this many CFGs are selected");
    add_common(run_cmd);

    uint32_t count_nodes = 7;
    std::string count_json;
    auto* count_cmd = app.add_subcommand("count", "count the graphs (both enumerations, both "
                                                  "readings of unstructured)");
    count_cmd->add_option("-n,--nodes", count_nodes, "largest number of nodes (1-9)")
        ->check(CLI::Range(1, 9))
        ->capture_default_str();
    count_cmd->add_option("--json", count_json, "write the counts as JSON");

    FuzzOptions fuzz;
    std::string fuzz_json;
    auto* random_cmd =
        app.add_subcommand("random", "random CFGs with loops: differential test of every "
                                     "configuration against the original");
    random_cmd->add_option("--seed", fuzz.seed, "random seed")->capture_default_str();
    random_cmd->add_option("--count", fuzz.count, "number of graphs (0: until --seconds)")
        ->capture_default_str();
    random_cmd->add_option("--seconds", fuzz.seconds, "time limit (0: none)")
        ->capture_default_str();
    random_cmd->add_option("--min-nodes", fuzz.cfg.min_nodes, "smallest graph")
        ->check(CLI::Range(2, 30))
        ->capture_default_str();
    random_cmd->add_option("--max-nodes", fuzz.cfg.max_nodes, "largest graph")
        ->check(CLI::Range(2, 30))
        ->capture_default_str();
    random_cmd->add_option("--threads", fuzz.threads, "threads per launch (multiple of 32)")
        ->capture_default_str();
    random_cmd->add_option("--ptxas", fuzz.ptxas, "check restructured PTX with this ptxas");
    random_cmd
        ->add_option("--ptxas-every", fuzz.ptxas_every,
                     "run ptxas on the outputs of every k-th graph")
        ->capture_default_str();
    random_cmd->add_option("--dump", fuzz.dump_dir, "write the kernels of failures into DIR");
    random_cmd->add_option("--json", fuzz_json, "write the results as JSON");
    add_common(random_cmd);

    uint32_t show_nodes = 7, show_id = 0;
    std::string show_enumeration = "labelled";
    auto* show_cmd = app.add_subcommand("show", "print one CFG's kernel, original and after each "
                                                "configuration, with its statistics");
    show_cmd->add_option("id", show_id, "CFG id as in the CSV")->required();
    show_cmd->add_option("-n,--nodes", show_nodes, "largest number of nodes (as for run)")
        ->check(CLI::Range(1, 9))
        ->capture_default_str();
    show_cmd->add_option("--enumeration", show_enumeration, "isomorphism or labelled")
        ->check(CLI::IsMember({"isomorphism", "labelled"}))
        ->capture_default_str();
    add_common(show_cmd);

    CLI11_PARSE(app, argc, argv);
    try {
        if (*run_cmd) return run_command(run, common);
        if (*random_cmd) {
            if (!fuzz.count && fuzz.seconds <= 0)
                throw std::invalid_argument("give --count or --seconds");
            return random_command(fuzz, common, fuzz_json);
        }
        if (*show_cmd) return show_command(show_nodes, show_enumeration, show_id, common);
        if (*count_cmd) {
            nlohmann::json json;
            print_counts(std::cout, count_nodes, count_json.empty() ? nullptr : &json);
            if (!count_json.empty()) cfr::tools::write_file(count_json, json.dump(1) + "\n");
            return 0;
        }
    } catch (const std::exception& e) {
        std::cerr << "cfr-synth: error: " << e.what() << '\n';
        return 2;
    }
    return 0;
}
