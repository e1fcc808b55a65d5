// Whole-file reading and writing with errors that name the file and say what went wrong.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace cfr::tools {

std::string read_file(const std::filesystem::path& path);
void write_file(const std::filesystem::path& path, std::string_view contents);

} // namespace cfr::tools
