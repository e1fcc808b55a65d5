// Reading PTX text into the IR (ir.hpp). A hand-written lexer and recursive-descent parser.
#pragma once

#include "ptx/ir.hpp"

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cfr::ptx {

// Thrown for malformed input; what() reads "file:line:col: error: message".
class ParseError : public std::runtime_error {
public:
    ParseError(std::string file, uint32_t line, uint32_t col, const std::string& message);

    const std::string& file() const { return file_; }
    uint32_t line() const { return line_; }
    uint32_t col() const { return col_; }

private:
    std::string file_;
    uint32_t line_;
    uint32_t col_;
};

Module parse(std::string_view text, std::string_view filename = "<input>");

// The same, calling `parsed(function, item)` as soon as each function with a body has been read,
// while its statements are still in the cache: the index `item` is where it will be in
// Module::items. What `parsed` throws leaves parse().
using FunctionParsed = std::function<void(const Function& function, std::size_t item)>;
Module parse(std::string_view text, std::string_view filename, const FunctionParsed& parsed);

} // namespace cfr::ptx
