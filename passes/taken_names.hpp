// The names a function uses (labels, variables, parameters, every operand's spelling and guard)
// that a fresh name could be, as a hash set, so that finding a fresh name costs the same however
// large the function is. Fresh names begin with kFreshRegister or kFreshLabel, so only the names
// that do are kept, with every parameterized declaration (%r<10>).
#pragma once

#include "ptx/cfg.hpp"
#include "ptx/ir.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace cfr::passes {

inline constexpr std::string_view kFreshRegister = "%cfr_";
inline constexpr std::string_view kFreshLabel = "$L__cfr_";

bool fresh_prefixed(std::string_view name);

class TakenNames {
public:
    // Every name the function's CFG, its parameters and return values, and `extra` declare or use.
    void collect(const ptx::Function& function, const ptx::Cfg& cfg,
                 const std::vector<ptx::Variable>& extra);
    // Pre: fresh_prefixed(name).
    bool contains(const std::string& name) const;

private:
    // A parameterized declaration %r<count>: it declares %r0 .. %r<count-1>.
    struct Range {
        std::string prefix;
        uint32_t count;
    };

    std::unordered_set<std::string> names_;
    std::vector<Range> ranges_;

    void keep(const std::string& name);
    void add(const ptx::Variable& variable);
    void add(const ptx::Statement& statement);
    void add(const ptx::Operand& operand);
};

} // namespace cfr::passes
