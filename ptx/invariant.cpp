// Internal invariants (invariant.hpp).
#include "ptx/invariant.hpp"

#include <string>
#include <string_view>

namespace cfr {

namespace {

// "passes/linearize/node_list.cpp" of an absolute path: its folder and name.
std::string_view folder_and_name(std::string_view path) {
    const auto last = path.rfind('/');
    if (last == std::string_view::npos || last == 0) return path;
    const auto before = path.rfind('/', last - 1);
    return before == std::string_view::npos ? path : path.substr(before + 1);
}

} // namespace

void invariant_failed(const char* condition, const char* meaning, std::source_location where) {
    throw InternalError("internal error at " + std::string(folder_and_name(where.file_name())) +
                        ":" + std::to_string(where.line()) + ": " + meaning + " (" + condition +
                        " does not hold)");
}

} // namespace cfr
