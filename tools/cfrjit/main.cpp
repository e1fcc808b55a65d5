// cfrjit: runs CUDA programs under libcfrjit.so (every kernel rewritten at load time, cached,
// every launch timed) and manages the module cache.
#include "tools/cfrjit/commands.hpp"
#include "tools/cfrjit/divmap_command.hpp"
#include "tools/cfrjit/report_command.hpp"

#include <CLI/CLI.hpp>

namespace {

constexpr const char* kDescription = R"(cfrjit: a dynamic compiler for CUDA programs.

  cfrjit run [options] -- ./app args   run a program with libcfrjit.so preloaded: every PTX
                                       module it loads is rewritten by the pass pipeline, cached,
                                       and every kernel launch is timed; a per-kernel table is
                                       printed on stderr at exit
  cfrjit cache list|stats|show|clear   the module cache; show: the adaptive policy's decisions
  cfrjit passes                        the passes a pipeline may use
  cfrjit locate                        where run finds libcfrjit.so and the driver
  cfrjit divmap [--source DIR] REPORT  the CUDA source with each line's divergent / visits
                                       counts from a report's divergence map (seed 004 Fig. 1)
  cfrjit report REPORT -o PAGE.html    one self-contained HTML page of a run: kernel table,
                                       modules and passes, divergence map on the source, CFGs
                                       before and after (docs/reports.md); `run --html` too

Without an NVIDIA driver (no /proc/driver/nvidia/version and no libcuda.so.1 other than the
emulator's), `run` uses cfrjit's emulated driver: <prefix>/lib/cfrjit for an installed cfrjit
(<prefix>/bin/cfrjit), <build>/emulator/driver/lib in the build tree, or $CFRJIT_EMULATOR_LIB.
The shim is <prefix>/lib/libcfrjit.so, <build>/lib/libcfrjit.so or $CFRJIT_SHIM_LIB. Every
option of `run` sets a CFRJIT_* variable (docs/configuration.md); the environment is validated
before the program starts.)";

} // namespace

int main(int argc, char** argv) {
    CLI::App app(kDescription, "cfrjit");
    app.require_subcommand(1);

    cfr::cli::RunOptions run;
    auto* run_cmd = app.add_subcommand("run", "Run a program under the shim");
    run_cmd
        ->add_option("--passes", run.passes,
                     "Pipeline, e.g. 'restructure-branches<selective=true>' or '' "
                     "(CFRJIT_PASSES; default: the selective restructuring when available)")
        ->type_name("PIPELINE")
        ->each([&](const std::string&) { run.passes_set = true; });
    run_cmd->add_option("--report", run.report, "Write the JSON report there (CFRJIT_REPORT)")
        ->type_name("FILE");
    run_cmd
        ->add_option("--html", run.html,
                     "When the program has ended, write the HTML report there (as `cfrjit "
                     "report`; the JSON report and CFG dump go to --report and --dump-dir, or to "
                     "a temporary directory)")
        ->type_name("FILE");
    run_cmd
        ->add_option("--source", run.source_dir,
                     "With --html: where the CUDA sources of the divergence map are")
        ->type_name("DIR");
    run_cmd->add_option("--timing", run.timing, "off, summary or per-launch (CFRJIT_TIMING)")
        ->type_name("MODE");
    run_cmd
        ->add_option("--images", run.images,
                     "all: rewrite every image whose PTX covers its machine code; jit-only: only "
                     "images the driver would JIT anyway (CFRJIT_IMAGES)")
        ->type_name("SCOPE");
    run_cmd->add_option("--kernels", run.kernels,
                        "Rewrite only these kernels: names or patterns, comma-separated "
                        "(CFRJIT_KERNELS)");
    run_cmd->add_option("--cache-dir", run.cache_dir, "Cache directory (CFRJIT_CACHE_DIR)")
        ->type_name("DIR");
    run_cmd->add_flag("--no-cache", run.no_cache, "Do not use the cache (CFRJIT_CACHE=off)");
    run_cmd
        ->add_option("--policy", run.policy,
                     "fixed: every kernel gets the pipeline's rewrite; adaptive: each kernel runs "
                     "the fastest of its original and candidate variants, measured "
                     "(CFRJIT_POLICY, docs/policy.md)")
        ->type_name("POLICY");
    run_cmd
        ->add_option("--candidates", run.candidates,
                     "The adaptive policy's candidate pipelines, separated by ';' "
                     "(CFRJIT_CANDIDATES)")
        ->type_name("PIPELINES");
    run_cmd
        ->add_option("--max-variants", run.max_variants,
                     "The most variants a kernel gets under the adaptive policy, the original "
                     "included (CFRJIT_MAX_VARIANTS, default 4)")
        ->type_name("N");
    run_cmd->add_flag("--divergence-map", run.divergence_map,
                      "Count warp visits and divergences of every branch (divergence-map, after "
                      "the pipeline) and report them (CFRJIT_DIVERGENCE_MAP=1)");
    run_cmd->add_option("--log", run.log, "trace, debug, info, warn, error or off (CFRJIT_LOG)")
        ->type_name("LEVEL");
    run_cmd->add_option("--log-file", run.log_file, "Log there instead of stderr (CFRJIT_LOG_FILE)")
        ->type_name("FILE");
    run_cmd
        ->add_option("--dump-dir", run.dump_dir,
                     "Write original and rewritten PTX and CFG dot files there "
                     "(CFRJIT_DUMP_DIR)")
        ->type_name("DIR");
    run_cmd->add_flag("--emulator", run.emulator,
                      "Use the emulated driver even when an NVIDIA driver is present");
    run_cmd->add_flag("-v,--verbose", run.verbose,
                      "Say on stderr which libcfrjit.so and which driver the program gets");
    run_cmd->add_option("command", run.command, "The program and its arguments (after --)")
        ->required();
    run_cmd->footer("Exit status: the program's; 2 for a bad option value, 127 if it could not "
                    "be started.");

    std::string action, cache_dir;
    auto* cache_cmd = app.add_subcommand(
        "cache", "List, summarise or clear the module cache; show the adaptive policy's decisions");
    cache_cmd
        ->add_option("action", action,
                     "list, stats, show (the adaptive policy's decisions) or clear (modules and "
                     "decisions)")
        ->required()
        ->check(CLI::IsMember({"list", "stats", "show", "clear"}));
    cache_cmd
        ->add_option("--cache-dir", cache_dir,
                     "Cache directory (default: $CFRJIT_CACHE_DIR, "
                     "$XDG_CACHE_HOME/cfrjit or ~/.cache/cfrjit)")
        ->type_name("DIR");

    auto* passes_cmd = app.add_subcommand("passes", "List the registered passes and options");
    auto* locate_cmd =
        app.add_subcommand("locate", "Where run finds libcfrjit.so, the emulated driver and an "
                                     "NVIDIA driver");

    cfr::cli::DivmapOptions divmap;
    auto* divmap_cmd = app.add_subcommand(
        "divmap", "Print the CUDA source annotated with a report's divergence map");
    divmap_cmd->add_option("report", divmap.report, "The JSON report of a run with the map")
        ->required()
        ->type_name("REPORT");
    divmap_cmd->add_option("--source", divmap.source_dir, "Where the CUDA sources are")
        ->type_name("DIR");
    divmap_cmd
        ->add_option("--context", divmap.context,
                     "Only N lines around each counted line (default: whole files)")
        ->type_name("N");
    divmap_cmd->add_option("--kernel", divmap.kernel, "Only this kernel's branches")
        ->type_name("NAME");

    cfr::cli::ReportOptions report;
    auto* report_cmd = app.add_subcommand(
        "report", "Write the HTML page of a run from its JSON report (docs/reports.md)");
    report_cmd->add_option("report", report.report, "The JSON report (cfrjit run --report)")
        ->required()
        ->type_name("REPORT");
    report_cmd->add_option("-o,--output", report.output, "The page to write")
        ->required()
        ->type_name("FILE");
    report_cmd
        ->add_option("--source", report.source_dir,
                     "Where the CUDA sources that the divergence map names are")
        ->type_name("DIR");
    report_cmd
        ->add_option("--dump", report.dump_dir,
                     "The run's --dump-dir (CFRJIT_DUMP_DIR): the CFGs of the changed kernels "
                     "are drawn from it, with Graphviz's dot")
        ->type_name("DIR");
    report_cmd->footer("Exit status: 0 when the page was written, 1 otherwise.");

    CLI11_PARSE(app, argc, argv);
    if (run_cmd->parsed()) return cfr::cli::run_program(run);
    if (cache_cmd->parsed()) return cfr::cli::cache_command(action, cache_dir);
    if (passes_cmd->parsed()) return cfr::cli::list_passes();
    if (locate_cmd->parsed()) return cfr::cli::locate_command();
    if (divmap_cmd->parsed()) return cfr::cli::divmap_command(divmap);
    if (report_cmd->parsed()) return cfr::cli::report_command(report);
    return 1;
}
