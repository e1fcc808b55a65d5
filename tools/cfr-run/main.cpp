// cfr-run: runs a CUDA program on cfrjit's emulated driver (its libcuda.so.1, found through
// LD_LIBRARY_PATH) and prints what the emulator counted per kernel when the program exits.
#include "tools/cfr-run/summary.hpp"
#include "tools/common/locate.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace fs = std::filesystem;

namespace {

constexpr const char* kDescription = R"(Run a CUDA program on cfrjit's emulated driver.

cfr-run puts the directory of cfrjit's own libcuda.so.1 first on LD_LIBRARY_PATH, so the program
(Driver API, or runtime API with static or shared cudart) runs unchanged on the SIMT emulator, no
GPU needed. When the program exits, cfr-run prints one line per kernel on stderr: launches,
emulated device time, warp instructions, SIMD efficiency (active lanes per warp instruction) and
divergent branch executions.

The driver directory is $CFRJIT_EMULATOR_LIB when set (a directory, or the path of the library),
else found next to cfr-run: <build>/emulator/driver/lib or <prefix>/lib/cfrjit.

Environment passed to the driver: CFRJIT_EMU_STATS (statistics file written at exit),
CFRJIT_EMU_THREADS (host threads running blocks; 1 = deterministic), CFRJIT_EMU_MAX_INSTRUCTIONS
(warp-instruction budget per launch, 0 = none).

Example: cfr-run --json stats.json -- ./vector_add 1024)";

} // namespace

int main(int argc, char** argv) {
    CLI::App app(kDescription, "cfr-run");
    std::string json_path;
    bool parallel = false;
    unsigned threads = 0;
    bool quiet = false;
    std::vector<std::string> command;
    app.add_option("--json", json_path,
                   "Write everything the emulator counted (per kernel: launches, "
                   "instructions, SIMD efficiency, per-branch divergence, per-block "
                   "executions) to FILE as JSON")
        ->type_name("FILE");
    app.add_flag("--parallel", parallel,
                 "Run blocks on all host cores (results stay the same; the "
                 "schedule is no longer deterministic)");
    app.add_option("--threads", threads, "Run blocks on N host threads (overrides --parallel)")
        ->type_name("N");
    app.add_flag("-q,--quiet", quiet, "Do not print the summary table");
    app.add_option("command", command, "The program and its arguments (after --)")->required();
    app.footer("Exit status: the program's, or 127 if it could not be started.");
    CLI11_PARSE(app, argc, argv);

    const cfr::cli::Located driver = cfr::cli::find_emulator_dir();
    if (!driver.found() || !fs::exists(driver.path / "libcuda.so.1")) {
        std::cerr << "cfr-run: the emulated driver (libcuda.so.1) is not in "
                  << (driver.found() ? driver.path.string() : "the build tree or the prefix")
                  << " (set CFRJIT_EMULATOR_LIB to the emulated driver's directory)\n";
        return 127;
    }
    const fs::path& driver_dir = driver.path;
    std::string stats_path = json_path;
    bool temporary = false;
    if (stats_path.empty()) {
        char name[] = "/tmp/cfr-run-XXXXXX";
        const int fd = mkstemp(name);
        if (fd < 0) {
            std::cerr << "cfr-run: cannot create a temporary file: " << std::strerror(errno)
                      << "\n";
            return 127;
        }
        close(fd);
        stats_path = name;
        temporary = true;
    }
    fs::remove(stats_path);

    std::string library_path = driver_dir.string();
    if (const char* old = std::getenv("LD_LIBRARY_PATH"); old && *old)
        library_path += std::string(":") + old;
    setenv("LD_LIBRARY_PATH", library_path.c_str(), 1);
    setenv("CFRJIT_EMU_STATS", fs::absolute(stats_path).c_str(), 1);
    if (threads)
        setenv("CFRJIT_EMU_THREADS", std::to_string(threads).c_str(), 1);
    else if (parallel)
        setenv("CFRJIT_EMU_THREADS", "0", 1);

    std::cout.flush();
    const pid_t pid = fork();
    if (pid < 0) {
        std::cerr << "cfr-run: fork: " << std::strerror(errno) << "\n";
        return 127;
    }
    if (pid == 0) {
        std::vector<char*> args;
        for (std::string& a : command)
            args.push_back(a.data());
        args.push_back(nullptr);
        execvp(args[0], args.data());
        std::cerr << "cfr-run: cannot run " << command[0] << ": " << std::strerror(errno) << "\n";
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

    std::ifstream in(stats_path);
    if (!in) {
        if (!quiet)
            std::cerr << "cfr-run: the program wrote no emulator statistics (it did not use the "
                         "CUDA driver?)\n";
    } else {
        try {
            const nlohmann::json report = nlohmann::json::parse(in);
            if (!quiet) cfr::run::print_summary(report, std::cerr);
        } catch (const nlohmann::json::exception& e) {
            std::cerr << "cfr-run: unreadable statistics in " << stats_path << ": " << e.what()
                      << "\n";
        }
    }
    if (temporary) fs::remove(stats_path);
    return code;
}
