#include "tools/common/table.hpp"

#include <algorithm>

namespace cfr::tools {

Table::Table(std::vector<std::string> headers, std::vector<Align> aligns)
    : headers_(std::move(headers)), aligns_(std::move(aligns)) {
    aligns_.resize(headers_.size(), Align::Left);
}

void Table::add_row(std::vector<std::string> cells) {
    cells.resize(headers_.size());
    rows_.push_back(std::move(cells));
}

void Table::add_rule() {
    rows_.emplace_back();
}

void Table::print(std::ostream& out) const {
    std::vector<size_t> widths(headers_.size());
    for (size_t c = 0; c < headers_.size(); ++c)
        widths[c] = headers_[c].size();
    for (const auto& row : rows_)
        for (size_t c = 0; c < row.size(); ++c)
            widths[c] = std::max(widths[c], row[c].size());

    auto print_cells = [&](const std::vector<std::string>& cells) {
        std::string line;
        for (size_t c = 0; c < cells.size(); ++c) {
            if (c) line += "  ";
            const size_t pad = widths[c] - cells[c].size();
            if (aligns_[c] == Align::Right) line.append(pad, ' ');
            line += cells[c];
            if (aligns_[c] == Align::Left && c + 1 < cells.size()) line.append(pad, ' ');
        }
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        out << line << '\n';
    };
    auto print_rule = [&] {
        size_t total = 0;
        for (size_t w : widths)
            total += w;
        out << std::string(total + 2 * (widths.size() - 1), '-') << '\n';
    };

    print_cells(headers_);
    print_rule();
    for (const auto& row : rows_) {
        if (row.empty())
            print_rule();
        else
            print_cells(row);
    }
}

} // namespace cfr::tools
