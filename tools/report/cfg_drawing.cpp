// Finding a changed kernel's dot files in the dump and drawing them with Graphviz.
#include "tools/report/cfg_drawing.hpp"

#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

extern char** environ;

namespace cfr::report {

namespace fs = std::filesystem;

namespace {

bool executable(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// A temporary file that is removed when it goes out of scope.
class TempFile {
public:
    explicit TempFile(const char* suffix) {
        const char* tmp = std::getenv("TMPDIR");
        std::string pattern =
            fmt::format("{}/cfrjit-cfg-XXXXXX{}", tmp && *tmp ? tmp : "/tmp", suffix);
        const int fd =
            ::mkstemps(pattern.data(), static_cast<int>(std::char_traits<char>::length(suffix)));
        if (fd >= 0) {
            ::close(fd);
            path_ = pattern;
        }
    }
    ~TempFile() {
        if (!path_.empty()) ::unlink(path_.c_str());
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    bool ok() const { return !path_.empty(); }
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

// Runs dot -Tsvg IN -o OUT; its exit status, or -1 when it could not be started.
int run_dot(const fs::path& dot, const std::string& in, const std::string& out) {
    std::vector<std::string> args = {dot.string(), "-Tsvg", in, "-o", out};
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    if (::posix_spawn(&pid, dot.c_str(), nullptr, nullptr, argv.data(), environ) != 0) return -1;
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

} // namespace

std::optional<fs::path> find_dot() {
    if (const char* named = std::getenv("CFRJIT_DOT"); named && *named)
        return executable(named) ? std::optional<fs::path>(named) : std::nullopt;
    const char* path = std::getenv("PATH");
    std::istringstream dirs(path ? path : "/usr/bin:/bin");
    for (std::string dir; std::getline(dirs, dir, ':');)
        if (!dir.empty() && executable(fs::path(dir) / "dot")) return fs::path(dir) / "dot";
    return std::nullopt;
}

std::optional<DotPair> find_dot_pair(const fs::path& dump_dir, uint64_t module_id,
                                     const std::string& key, const std::string& kernel) {
    std::error_code ec;
    const std::string stem = fmt::format("m{}-{}", module_id, key);
    const std::string tail = "." + kernel + ".orig.dot";
    for (auto it = fs::directory_iterator(dump_dir, ec); !ec && it != fs::end(it);
         it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (!name.starts_with(stem) || !name.ends_with(tail)) continue;
        const std::string unit = name.substr(stem.size(), name.size() - stem.size() - tail.size());
        if (!unit.empty() && !unit.starts_with("-u")) continue;
        DotPair pair{it->path(), dump_dir / (stem + unit + "." + kernel + ".new.dot"),
                     dump_dir / (stem + unit + ".orig.ptx"), dump_dir / (stem + unit + ".ptx")};
        if (fs::is_regular_file(pair.after, ec)) return pair;
    }
    return std::nullopt;
}

std::optional<VariantDots> find_variant_dots(const fs::path& dump_dir, uint64_t module_id,
                                             const std::string& key, const std::string& kernel) {
    const std::string stem = fmt::format("m{}-{}", module_id, key);
    std::ifstream index(dump_dir / (stem + ".variants.tsv"));
    VariantDots dots{
        dump_dir / (stem + "." + kernel + ".orig.dot"), dump_dir / (stem + ".orig.ptx"), {}};
    std::error_code ec;
    if (!index || !fs::is_regular_file(dots.original, ec)) return std::nullopt;
    for (std::string line; std::getline(index, line);) {
        const auto tab = line.find('\t');
        if (tab == std::string::npos) continue;
        const std::string tag = line.substr(0, tab);
        VariantDots::Variant v{line.substr(tab + 1),
                               dump_dir / (stem + "." + kernel + "." + tag + ".dot"),
                               dump_dir / (stem + "." + tag + ".ptx")};
        if (fs::is_regular_file(v.dot, ec)) dots.variants.push_back(std::move(v));
    }
    if (dots.variants.empty()) return std::nullopt;
    return dots;
}

size_t count_blocks(const std::string& dot_text) {
    constexpr std::string_view kBlock = "[label=\"B"; // blocks are labelled B<n>, the exit "exit"
    size_t n = 0;
    for (auto at = dot_text.find(kBlock); at != std::string::npos;
         at = dot_text.find(kBlock, at + kBlock.size()))
        ++n;
    return n;
}

std::string mark_divergent(std::string dot_text, const std::vector<DivergentBranch>& branches) {
    uint64_t most = 0;
    for (const auto& b : branches)
        most = std::max(most, b.divergent);
    for (const auto& b : branches) {
        if (b.divergent == 0 || b.instruction.empty()) continue;
        // The dot file's labels end each statement with \l and indent instructions by 4.
        const std::string needle = "\\l    " + b.instruction + "\\l";
        const auto at = dot_text.find(needle);
        if (at == std::string::npos || dot_text.find(needle, at + 1) != std::string::npos) continue;
        const auto end = dot_text.find("\"];\n", at);
        const auto line = dot_text.rfind('\n', at);
        if (end == std::string::npos || dot_text.compare(line + 1, 5, "    b") != 0) continue;
        const double t = static_cast<double>(b.divergent) / static_cast<double>(most);
        dot_text.replace(end, 4,
                         fmt::format("divergent {} of {} warp visits\\l\", style=filled, "
                                     "fillcolor=\"0.0 {:.2f} 1.0\"];\n",
                                     b.divergent, b.visits, 0.08 + 0.55 * t));
    }
    return dot_text;
}

std::optional<std::string> render_svg(const fs::path& dot, const std::string& dot_text,
                                      std::string& error) {
    TempFile in(".dot"), out(".svg");
    if (!in.ok() || !out.ok()) {
        error = "cannot create a temporary file (set TMPDIR to a writable directory)";
        return std::nullopt;
    }
    std::ofstream(in.path()) << dot_text;
    if (const int status = run_dot(dot, in.path(), out.path()); status != 0) {
        error = status < 0 ? fmt::format("cannot run {}", dot.string())
                           : fmt::format("{} exited with status {}", dot.string(), status);
        return std::nullopt;
    }
    std::string svg = slurp(out.path());
    const auto start = svg.find("<svg");
    if (start == std::string::npos) {
        error = fmt::format("{} wrote no SVG", dot.string());
        return std::nullopt;
    }
    return svg.substr(start);
}

} // namespace cfr::report
