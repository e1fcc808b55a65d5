// cfr-opt: the offline face of cfrjit. Reads a PTX module, runs a pass pipeline over it, reports
// the structure of its functions and writes the result.
#include "ptx/cfg.hpp"
#include "ptx/dot.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"
#include "tools/cfr-opt/function_report.hpp"
#include "tools/common/files.hpp"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>

namespace {

struct Options {
    std::string input;
    std::string output;
    std::string pipeline;
    std::string dot_dir;
    bool classify = false;
    bool stats = false;
    bool json = false;
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

int run(const Options& options) {
    const std::string text = cfr::tools::read_file(options.input);
    cfr::ptx::Module module = cfr::ptx::parse(text, options.input);

    if (!options.pipeline.empty())
        throw std::runtime_error("unknown pass '" + options.pipeline +
                                 "': this build registers no passes; use the empty pipeline");

    const bool reporting = options.classify || options.stats;
    if (reporting) {
        const auto reports = cfr::tools::report_functions(module);
        if (options.json) {
            std::cout << cfr::tools::to_json(reports).dump(2) << '\n';
        } else {
            if (options.classify) cfr::tools::print_classification(std::cout, reports);
            if (options.classify && options.stats) std::cout << '\n';
            if (options.stats) cfr::tools::print_statistics(std::cout, reports);
        }
    }
    if (!options.dot_dir.empty()) write_dot_files(module, options.dot_dir);
    if (!options.output.empty())
        cfr::tools::write_file(options.output, cfr::ptx::print(module));
    else if (!reporting && options.dot_dir.empty())
        std::cout << cfr::ptx::print(module);
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"cfr-opt: parse a PTX module, run a cfrjit pass pipeline on it, report its "
                 "control-flow structure and print it back.\n"};
    app.footer("Examples:\n"
               "  cfr-opt -i kernel.ptx --classify --stats\n"
               "  cfr-opt -i kernel.ptx --dot cfgs/ -o out.ptx\n"
               "  cfr-opt -i kernel.ptx --classify --json > report.json");
    Options options;
    app.add_option("-i,--input", options.input, "PTX file to read")->required();
    app.add_option("-o,--output", options.output,
                   "where to write the resulting PTX (default: standard output when nothing "
                   "else is asked for)");
    app.add_option("-p,--passes", options.pipeline, "comma-separated pass pipeline to run");
    app.add_flag("--classify", options.classify,
                 "one row per function: blocks, edges, structural class, cycles, unstructured "
                 "edges; then a summary by class");
    app.add_flag("--stats", options.stats, "instruction, block and branch counts per function");
    app.add_option("--dot", options.dot_dir, "write one Graphviz file per function into DIR");
    app.add_flag("--json", options.json, "write --classify/--stats as JSON instead of tables");
    CLI11_PARSE(app, argc, argv);

    try {
        return run(options);
    } catch (const cfr::ptx::ParseError& e) {
        std::cerr << e.what() << '\n';
    } catch (const std::exception& e) {
        std::cerr << "cfr-opt: error: " << e.what() << '\n';
    }
    return 1;
}
