// Plain-text tables for the command-line tools: columns sized to their widest cell, numbers right
// aligned, text left aligned.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace cfr::tools {

class Table {
public:
    enum class Align { Left, Right };

    explicit Table(std::vector<std::string> headers, std::vector<Align> aligns = {});

    void add_row(std::vector<std::string> cells);
    void add_rule(); // a horizontal rule before the next row, e.g. above a total
    void print(std::ostream& out) const;

private:
    std::vector<std::string> headers_;
    std::vector<Align> aligns_;
    std::vector<std::vector<std::string>> rows_; // an empty row is a rule
};

} // namespace cfr::tools
