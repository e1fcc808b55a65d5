// cfr-opt: the offline face of cfrjit. Reads a PTX module, runs a pass pipeline over it, reports
// the structure of its functions and writes the result.
#include "passes/analysis/divergence.hpp"
#include "passes/configurations.hpp"
#include "passes/instrument/divergence_map.hpp"
#include "passes/module_unit.hpp"
#include "passes/pipeline.hpp"
#include "passes/registry.hpp"
#include "ptx/cfg.hpp"
#include "ptx/control_edit.hpp"
#include "ptx/dot.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"
#include "tools/cfr-opt/function_report.hpp"
#include "tools/cfr-opt/pass_reports.hpp"
#include "tools/common/files.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <iostream>

namespace {

struct Options {
    std::string input;
    std::string output;
    std::string pipeline;
    std::string config;
    std::string dot_dir;
    std::string profile;
    bool classify = false;
    bool stats = false;
    bool divergence = false;
    bool map_table = false;
    bool list_passes = false;
    bool json = false;
    std::string verify = "full";
};

void write_dot_files(const cfr::ptx::Module& module, const std::filesystem::path& dir) {
    std::filesystem::create_directories(dir);
    for (const auto& item : module.items) {
        const auto* function = std::get_if<cfr::ptx::Function>(&item);
        if (!function || !function->body) continue;
        try {
            const auto cfg = cfr::ptx::build_cfg(*function);
            cfr::tools::write_file(dir / (function->name + ".dot"),
                                   cfr::ptx::to_dot(cfg, function->name));
        } catch (const cfr::ptx::CfgError& e) {
            std::cerr << "cfr-opt: warning: no CFG for " << function->name << ": " << e.what()
                      << '\n';
        }
    }
}

// Gives every pass of the pipeline that has a `profile` option the emulator counts in `file`.
void with_profile(std::vector<cfr::passes::PassSpec>& pipeline, const std::string& file) {
    bool used = false;
    for (auto& spec : pipeline) {
        const auto* info = cfr::passes::find_pass(spec.name);
        for (const auto& option : info->options)
            if (option.name == "profile" && !spec.options.count("profile")) {
                spec = cfr::passes::with_option(spec, "profile", file);
                used = true;
            }
    }
    if (!used)
        throw cfr::passes::PipelineError("--profile: no pass of the pipeline takes a profile "
                                         "(linearize and blockip-linearize do)");
}

// A pass's contract with its default options.
void print_contract(const cfr::passes::Contract& contract) {
    for (const auto strength : {cfr::passes::Strength::Hard, cfr::passes::Strength::Soft}) {
        std::string line;
        for (const auto& requirement : contract.requirements)
            if (requirement.strength == strength)
                line += (line.empty() ? "" : ", ") + cfr::passes::to_string(requirement);
        if (!line.empty())
            std::cout << "    "
                      << (strength == cfr::passes::Strength::Hard ? "requires"
                                                                  : "soft requirements")
                      << ": " << line << '\n';
    }
    std::cout << "    promises (default options): " << cfr::passes::to_string(contract.promise)
              << '\n';
    if (contract.traits.counters)
        std::cout << "    counters read back: " << contract.traits.counters->symbol << '\n';
}

void print_pass_list() {
    for (const auto& info : cfr::passes::registered_passes()) {
        std::cout << info.name << "\n    " << info.description << '\n';
        for (const auto& option : info.options) {
            std::cout << "    <" << option.name << "=...> " << option.description;
            if (!option.values.empty()) {
                std::cout << " (";
                for (size_t k = 0; k < option.values.size(); ++k)
                    std::cout << (k ? ", " : "") << option.values[k];
                std::cout << ")";
            }
            std::cout << ", default " << option.default_value << '\n';
        }
        print_contract(info.contract(info.parse({})));
    }
}

// The branch table of a module the divergence-map pass instrumented (after -p, if given).
void print_map_table(const cfr::passes::DivergenceMapTable& table, const Options& options) {
    if (options.json) {
        nlohmann::json rows = nlohmann::json::array();
        for (const auto& b : table.branches)
            rows.push_back({{"index", b.index},
                            {"kernel", b.function},
                            {"entry", b.entry},
                            {"line", b.line},
                            {"opcode", cfr::ptx::control_mnemonic(b.control)},
                            {"source", b.source ? nlohmann::json(*b.source) : nlohmann::json()}});
        std::cout << nlohmann::json{{"symbol", table.symbol}, {"branches", rows}}.dump(2) << '\n';
        return;
    }
    if (table.symbol.empty()) {
        std::cout << "no divergence map in this module\n";
        return;
    }
    std::cout << table.symbol << ": " << table.branches.size()
              << " branches, counters [2*i] visits, [2*i+1] divergent\n";
    for (const auto& b : table.branches)
        std::cout << b.index << '\t' << b.function << "\tline " << b.line << '\t'
                  << cfr::ptx::control_mnemonic(b.control) << '\t' << b.source.value_or("-")
                  << '\n';
}

int run(const Options& options) {
    if (options.list_passes) {
        print_pass_list();
        return 0;
    }
    if (options.input.empty()) throw std::runtime_error("no input: give -i FILE (see --help)");
    if (!options.config.empty() && !options.pipeline.empty())
        throw cfr::passes::PipelineError("give either -p or --config, not both");
    const auto* config =
        options.config.empty() ? nullptr : &cfr::passes::configuration(options.config);
    auto pipeline = cfr::passes::parse_pipeline(config ? config->pipeline : options.pipeline);
    if (!options.profile.empty()) with_profile(pipeline, options.profile);
    const std::string text = cfr::tools::read_file(options.input);
    std::vector<cfr::ptx::CfgPlan> plans;
    cfr::ptx::Module module =
        cfr::ptx::parse(text, options.input, cfr::ptx::plan_while_parsing(plans));
    const auto verify = *cfr::passes::verify_level(options.verify);
    const auto pass_reports =
        config && options.profile.empty()
            ? cfr::passes::run_configuration(module, *config, verify)
            : cfr::passes::run_pipeline(module, pipeline, verify, {}, std::move(plans));

    if (options.divergence) {
        cfr::passes::ModuleUnit unit(module);
        const auto divergence =
            cfr::analysis::analyze_divergence(unit, cfr::analysis::Explain::Yes);
        if (options.json)
            std::cout << cfr::tools::divergence_json(divergence).dump(2) << '\n';
        else
            cfr::tools::print_divergence(std::cout, divergence);
    }
    if (options.map_table) print_map_table(cfr::passes::read_divergence_map_table(module), options);
    const bool reporting = options.classify || options.stats;
    if (reporting) {
        const auto reports = cfr::tools::report_functions(module);
        if (options.json) {
            auto json = cfr::tools::to_json(reports);
            json["pipeline"] = cfr::passes::spelling(pipeline);
            json["passes"] = cfr::tools::pass_reports_json(pass_reports);
            std::cout << json.dump(2) << '\n';
        } else {
            if (options.classify) cfr::tools::print_classification(std::cout, reports);
            if (options.classify && options.stats) std::cout << '\n';
            if (options.stats) cfr::tools::print_statistics(std::cout, reports);
            if (options.stats && !pass_reports.empty())
                cfr::tools::print_pass_reports(std::cout, pass_reports);
        }
    }
    if (!options.dot_dir.empty()) write_dot_files(module, options.dot_dir);
    // `none` is the module as nvcc wrote it, byte for byte.
    const auto result = [&] {
        return config && config->name == "none" ? text : cfr::ptx::print(module);
    };
    if (!options.output.empty())
        cfr::tools::write_file(options.output, result());
    else if (!reporting && !options.divergence && !options.map_table && options.dot_dir.empty())
        std::cout << result();
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"cfr-opt: parse a PTX module, run a cfrjit pass pipeline on it, report its "
                 "control-flow structure and print it back.\n"};
    app.footer("Examples:\n"
               "  cfr-opt -i kernel.ptx --classify --stats\n"
               "  cfr-opt -i kernel.ptx --dot cfgs/ -o out.ptx\n"
               "  cfr-opt -i kernel.ptx --classify --json > report.json\n"
               "  cfr-opt -i kernel.ptx -p 'linearize<merge-loops=auto>' --profile stats.json "
               "--stats");
    Options options;
    app.add_option("-i,--input", options.input, "PTX file to read");
    app.add_option("-o,--output", options.output,
                   "where to write the resulting PTX (default: standard output when nothing "
                   "else is asked for)");
    app.add_option("-p,--passes", options.pipeline,
                   "comma-separated pass pipeline to run, options in <>: "
                   "\"divergence,uniform-branches\" (see --list-passes)");
    app.add_option("--config", options.config,
                   "run one of seed 000's configurations instead of -p: none, no-restructuring, "
                   "loop, loop-copy, loop+branch, loop-copy+branch");
    app.add_flag("--list-passes", options.list_passes, "list the passes and their options");
    app.add_flag("--divergence", options.divergence,
                 "classify every branch as divergent or uniform, with the reason chain");
    app.add_flag("--map-table", options.map_table,
                 "print the branch table of a module instrumented by divergence-map (counter "
                 "index, kernel, PTX line, source line)");
    app.add_flag("--classify", options.classify,
                 "one row per function: blocks, edges, structural class, cycles, unstructured "
                 "edges; then a summary by class");
    app.add_flag("--stats", options.stats, "instruction, block and branch counts per function");
    app.add_option("--dot", options.dot_dir, "write one Graphviz file per function into DIR");
    app.add_option("--profile", options.profile,
                   "emulator counts of this module (cfr-run --json FILE) for the cost models of "
                   "the passes that decide whether a transform pays (linearize, "
                   "blockip-linearize)")
        ->type_name("FILE");
    app.add_flag("--json", options.json, "write --classify/--stats as JSON instead of tables");
    app.add_option("--verify", options.verify,
                   "what the verifier checks after every pass (docs/verifier.md): off; cheap "
                   "(well-formed IR and the class the pass promises); full (also that the "
                   "printed module parses back to the same IR). Default: full")
        ->check(CLI::IsMember({"off", "cheap", "full"}))
        ->type_name("LEVEL");
    CLI11_PARSE(app, argc, argv);

    try {
        return run(options);
    } catch (const cfr::passes::PipelineError& e) {
        std::cerr << "cfr-opt: error: " << e.what() << '\n';
        return 2;
    } catch (const cfr::ptx::ParseError& e) {
        std::cerr << e.what() << '\n';
    } catch (const std::exception& e) {
        std::cerr << "cfr-opt: error: " << e.what() << '\n';
    }
    return 1;
}
