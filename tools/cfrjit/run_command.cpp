// cfrjit run: the environment for the shim, LD_PRELOAD, and the emulated driver when there is no
// NVIDIA driver; then exec. With --html the program runs as a child, and when it has ended the
// page is written from its JSON report and CFG dump (temporary ones unless --report and
// --dump-dir name them).
#include "runtime/config.hpp"
#include "tools/cfrjit/commands.hpp"
#include "tools/cfrjit/report_command.hpp"
#include "tools/common/locate.hpp"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <vector>

namespace cfr::cli {

namespace {

void set(const char* name, const std::string& value) {
    if (!value.empty()) setenv(name, value.c_str(), 1);
}

void prepend(const char* name, const std::string& value, char sep) {
    std::string v = value;
    if (const char* old = std::getenv(name); old && *old) v += sep + std::string(old);
    setenv(name, v.c_str(), 1);
}

std::vector<char*> argv_of(const std::vector<std::string>& command) {
    std::vector<char*> args;
    for (const auto& a : command)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    return args;
}

// A directory for the report and dump that --html needs and the user did not name; removed at
// the end.
class ScratchDir {
public:
    ScratchDir() {
        const char* tmp = std::getenv("TMPDIR");
        std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/cfrjit-html-XXXXXX";
        if (::mkdtemp(pattern.data())) path_ = pattern;
    }
    ~ScratchDir() {
        std::error_code ec;
        if (!path_.empty()) std::filesystem::remove_all(path_, ec);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    bool ok() const { return !path_.empty(); }
    std::string file(const char* name) const { return path_ + "/" + name; }

private:
    std::string path_;
};

// Runs the program as a child (interrupts go to it alone) and returns its exit status as a shell
// reports it: 128 + the signal that ended it.
int run_child(const std::vector<std::string>& command) {
    const pid_t pid = ::fork();
    if (pid < 0) {
        fmt::print(stderr, "cfrjit: cannot start {}: {}\n", command[0], std::strerror(errno));
        return 127;
    }
    if (pid == 0) {
        auto args = argv_of(command);
        execvp(args[0], args.data());
        fmt::print(stderr, "cfrjit: cannot run {}: {}\n", command[0], std::strerror(errno));
        std::_Exit(127);
    }
    struct sigaction ignore {
    }, old_int{}, old_quit{};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGINT, &ignore, &old_int);
    ::sigaction(SIGQUIT, &ignore, &old_quit);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    ::sigaction(SIGINT, &old_int, nullptr);
    ::sigaction(SIGQUIT, &old_quit, nullptr);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

// When the file was last written; nullopt when it is not there.
std::optional<std::filesystem::file_time_type> written_at(const std::string& path) {
    std::error_code ec;
    const auto t = std::filesystem::last_write_time(path, ec);
    return ec ? std::nullopt : std::optional(t);
}

// An environment variable's value, to be put back once the child has it.
struct SavedVariable {
    const char* name;
    std::optional<std::string> value;

    explicit SavedVariable(const char* n) : name(n) {
        if (const char* v = std::getenv(n)) value = v;
    }
    void restore() const {
        if (value)
            setenv(name, value->c_str(), 1);
        else
            unsetenv(name);
    }
};

// The preload and library path are the program's, not those of the tools the page is drawn with.
int run_with_html(const RunOptions& o, const std::string& driver,
                  const std::vector<SavedVariable>& own_environment) {
    ScratchDir scratch;
    if (!scratch.ok() && (o.report.empty() || o.dump_dir.empty())) {
        fmt::print(stderr, "cfrjit: --html: cannot create a temporary directory (set TMPDIR, or "
                           "give --report and --dump-dir)\n");
        return 2;
    }
    ReportOptions page{o.report, o.source_dir, o.dump_dir, o.html, driver};
    if (page.report.empty()) page.report = scratch.file("report.json");
    if (page.dump_dir.empty()) page.dump_dir = scratch.file("dump");
    setenv("CFRJIT_REPORT", page.report.c_str(), 1);
    setenv("CFRJIT_DUMP_DIR", page.dump_dir.c_str(), 1);
    const auto before = written_at(page.report);
    const int status = run_child(o.command);
    for (const auto& v : own_environment)
        v.restore();
    const auto after = written_at(page.report);
    if (!after || after == before) {
        fmt::print(stderr, "cfrjit: no HTML report: the program loaded no CUDA module (or ended "
                           "before its exit handlers ran)\n");
        return status;
    }
    if (report_command(page) == 0) fmt::print(stderr, "cfrjit: HTML report {}\n", o.html);
    return status;
}

} // namespace

int run_program(const RunOptions& o) {
    if (!o.source_dir.empty() && o.html.empty()) {
        fmt::print(stderr, "cfrjit: --source is for the HTML report: give --html FILE too (or use "
                           "`cfrjit divmap --source DIR` on the JSON report)\n");
        return 2;
    }
    if (o.passes_set) setenv("CFRJIT_PASSES", o.passes.c_str(), 1);
    set("CFRJIT_REPORT", o.report);
    set("CFRJIT_TIMING", o.timing);
    set("CFRJIT_IMAGES", o.images);
    set("CFRJIT_KERNELS", o.kernels);
    set("CFRJIT_CACHE_DIR", o.cache_dir);
    set("CFRJIT_LOG", o.log);
    set("CFRJIT_LOG_FILE", o.log_file);
    set("CFRJIT_DUMP_DIR", o.dump_dir);
    set("CFRJIT_POLICY", o.policy);
    set("CFRJIT_CANDIDATES", o.candidates);
    set("CFRJIT_MAX_VARIANTS", o.max_variants);
    if (o.no_cache) setenv("CFRJIT_CACHE", "off", 1);
    if (o.divergence_map) setenv("CFRJIT_DIVERGENCE_MAP", "1", 1);
    try {
        runtime::read_config_from_environment();
    } catch (const runtime::ConfigError& e) {
        fmt::print(stderr, "cfrjit: {}\n", e.what());
        return 2;
    }

    const Located shim = find_shim();
    if (!shim.found()) {
        fmt::print(stderr, "cfrjit: libcfrjit.so not found next to cfrjit (set CFRJIT_SHIM_LIB)\n");
        return 127;
    }
    const std::vector<SavedVariable> own_environment{SavedVariable("LD_PRELOAD"),
                                                     SavedVariable("LD_LIBRARY_PATH")};
    const Located emulator = find_emulator_dir();
    const bool emulated = o.emulator || !nvidia_driver_present(emulator.path);
    if (emulated) {
        if (!emulator.found()) {
            fmt::print(stderr, "cfrjit: no NVIDIA driver and no emulated driver found (set "
                               "CFRJIT_EMULATOR_LIB)\n");
            return 127;
        }
        prepend("LD_LIBRARY_PATH", emulator.path.string(), ':');
    }
    prepend("LD_PRELOAD", shim.path.string(), ':');
    if (o.verbose) {
        fmt::print(stderr, "cfrjit: shim {} ({})\n", shim.path.string(), to_string(shim.origin));
        if (emulated)
            fmt::print(stderr, "cfrjit: emulated driver {} ({})\n",
                       (emulator.path / "libcuda.so.1").string(), to_string(emulator.origin));
        else
            fmt::print(stderr, "cfrjit: NVIDIA driver\n");
    }

    if (!o.html.empty())
        return run_with_html(o,
                             emulated ? fmt::format("cfrjit's emulated driver ({})",
                                                    (emulator.path / "libcuda.so.1").string())
                                      : "NVIDIA driver",
                             own_environment);
    auto args = argv_of(o.command);
    execvp(args[0], args.data());
    fmt::print(stderr, "cfrjit: cannot run {}: {}\n", o.command[0], std::strerror(errno));
    return 127;
}

} // namespace cfr::cli
