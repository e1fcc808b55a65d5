// What a pass is to the pass manager: a named transformation or analysis over a module, with
// options, that reports what it did.
#pragma once

#include "passes/contract.hpp"
#include "passes/options.hpp"

#include <any>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace cfr::passes {

class ModuleUnit;

// The functions a pipeline may rewrite, by name (CFRJIT_KERNELS in the shim); empty: every one.
// The others never get a FunctionUnit: no pass sees or changes them.
using FunctionSelection = std::function<bool(const std::string& function)>;

// What one run of a pass did. Counters are named in the plural of what they count ("blocks
// added", "predicates added", "regions restructured") so that reports can print them as they are.
struct PassReport {
    std::string pass; // the pass's pipeline spelling, options included
    bool changed = false;
    std::map<std::string, int64_t> counters;
    // One line per decision a cost model took, with the numbers it compared ("loop at line 57 of
    // k: 970 -> 756 cycles per outer iteration, merged").
    std::vector<std::string> decisions;
    // Filled by the pass manager: the functions whose CFG or declarations the pass changed, in
    // the module's order.
    std::vector<std::string> functions_changed;

    void count(const std::string& what, int64_t n = 1) { counters[what] += n; }
};

class Pass {
public:
    virtual ~Pass() = default;
    virtual PassReport run(ModuleUnit& unit) = 0;
};

struct PassInfo {
    std::string name; // short, lower-case, hyphenated: "restructure-branches"
    std::string description;
    std::vector<OptionInfo> options;
    // The pass's typed options from those a pipeline wrote; throws PipelineError naming the pass
    // and the option.
    std::function<std::any(const PassOptions&)> parse;
    std::function<std::unique_ptr<Pass>(const std::any& options)> create;
    std::function<Contract(const std::any& options)> contract;
};

// A pass as its file declares it: typed options, the pass they make, and its contract with them.
template <class T>
struct PassDeclaration {
    std::string name;
    std::string description;
    std::vector<Option<T>> options;
    std::function<std::unique_ptr<Pass>(const T&)> create;
    std::function<Contract(const T&)> contract;
};

struct NoOptions {};

template <class T>
PassInfo declare(PassDeclaration<T> pass) {
    auto parse = [name = pass.name, options = pass.options](const PassOptions& written) {
        return std::any(parse_options(name, options, written));
    };
    auto create = [create = std::move(pass.create)](const std::any& options) {
        return create(std::any_cast<const T&>(options));
    };
    auto contract = [contract = std::move(pass.contract)](const std::any& options) {
        return contract(std::any_cast<const T&>(options));
    };
    return {std::move(pass.name), std::move(pass.description), option_infos(pass.options),
            std::move(parse),     std::move(create),           std::move(contract)};
}

} // namespace cfr::passes
