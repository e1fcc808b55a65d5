// The passes' view of a module and its functions: see module_unit.hpp.
#include "passes/module_unit.hpp"

#include "passes/analysis/convergence.hpp"
#include "passes/analysis/divergence.hpp"
#include "ptx/invariant.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <iterator>

namespace cfr::passes {

FunctionUnit::FunctionUnit(ptx::Function& function, ptx::Cfg planned, std::vector<size_t> starts)
    : function_(&function), cfg_(std::move(planned)), starts_(std::move(starts)) {}

void FunctionUnit::fill() const {
    if (starts_.empty()) return;
    ptx::fill_cfg(cfg_, *function_, starts_);
    starts_.clear();
}

ptx::Cfg& FunctionUnit::mutable_cfg() {
    drop_graph_analyses();
    return mutable_code();
}

ptx::Cfg& FunctionUnit::mutable_code() {
    fill();
    changed_ = true;
    version_ = ++last_version_;
    return cfg_;
}

ptx::Cfg& FunctionUnit::code_to_take() {
    fill();
    collect_taken_names();
    return cfg_;
}

ptx::Cfg FunctionUnit::replace_cfg(ptx::Cfg cfg) {
    std::swap(mutable_cfg(), cfg);
    return cfg;
}

void FunctionUnit::restore(Snapshot snapshot) {
    cfg_ = std::move(snapshot.cfg);
    version_ = snapshot.version;
    changed_ = snapshot.changed;
    new_declarations_.resize(snapshot.declarations);
    drop_graph_analyses();
}

void FunctionUnit::drop_graph_analyses() {
    graph_.reset();
    dominators_.reset();
    post_dominators_.reset();
    loops_.reset();
    structure_.reset();
    tail_structured_.reset();
}

const Digraph& FunctionUnit::graph() {
    if (!graph_) graph_ = cfg_.graph();
    return *graph_;
}

const analysis::DominatorTree& FunctionUnit::dominators() {
    if (!dominators_) dominators_ = analysis::dominators(graph(), cfg_.entry());
    return *dominators_;
}

const analysis::DominatorTree& FunctionUnit::post_dominators() {
    if (!post_dominators_) post_dominators_ = analysis::post_dominators(graph(), cfg_.exit());
    return *post_dominators_;
}

const analysis::LoopNest& FunctionUnit::loops() {
    if (!loops_) loops_ = analysis::loop_nest(graph(), cfg_.entry());
    return *loops_;
}

const analysis::StructureReport& FunctionUnit::structure() {
    if (!structure_)
        structure_ = analysis::classify(graph(), cfg_.entry(), cfg_.exit(),
                                        {dominators(), post_dominators(), loops()});
    return *structure_;
}

bool FunctionUnit::tail_structured() {
    if (structure_) return structure_->klass <= analysis::StructuralClass::TailStructured;
    if (!tail_structured_)
        tail_structured_ = analysis::is_linear(graph(), cfg_.entry(), cfg_.exit()) ||
                           analysis::contracts(graph(), cfg_.entry(), cfg_.exit(),
                                               analysis::Rules::TailStructured);
    return *tail_structured_;
}

void FunctionUnit::collect_taken_names() {
    // A CFG handed out by mutable_cfg() may have changed: the names are collected again.
    if (!taken_ || taken_version_ != version_) {
        taken_.emplace();
        taken_->collect(*function_, cfg(), new_declarations_);
        taken_version_ = version_;
    }
}

std::string FunctionUnit::fresh_name(std::string_view prefix, const std::string& stem) {
    collect_taken_names();
    // The counter never repeats and the stem ends before it, so no two fresh names are the same:
    // only the names the function already has are to be avoided.
    CFR_INVARIANT(stem.empty() || !std::isdigit(static_cast<unsigned char>(stem.back())),
                  "a fresh name's stem does not end in a digit");
    std::string name;
    do {
        char digits[12];
        const auto end = std::to_chars(digits, digits + sizeof digits, fresh_++).ptr;
        name.assign(prefix);
        name.append(stem);
        name.append(digits, end);
    } while (taken_->contains(name));
    return name;
}

ptx::Register FunctionUnit::new_register(ptx::Word type, const std::string& stem) {
    ptx::Variable declaration;
    declaration.space = ptx::StateSpace::Reg;
    declaration.type = type;
    declaration.name = fresh_name(kFreshRegister, stem);
    ptx::Register fresh{declaration.name, function_->register_count++};
    declaration.number = fresh.id;
    new_declarations_.push_back(std::move(declaration));
    changed_ = true;
    return fresh;
}

std::string FunctionUnit::new_label(const std::string& stem) {
    return fresh_name(kFreshLabel, stem);
}

void FunctionUnit::write_back() {
    if (!holds_code_) return;
    if (!starts_.empty() && new_declarations_.empty()) { // the code never left the body
        starts_.clear();
        cfg_ = {};
    } else {
        fill();
        // The body fill() emptied keeps its storage, which the code moves back into.
        auto& body = function_->body ? *function_->body : function_->body.emplace();
        body.clear();
        for (auto& declaration : new_declarations_)
            body.emplace_back(std::move(declaration));
        new_declarations_.clear();
        ptx::append_layout(std::move(cfg_), body);
    }
    holds_code_ = false;
    version_ = ++last_version_;
    drop_graph_analyses();
}

ModuleUnit::ModuleUnit(ptx::Module& module, const FunctionSelection& only)
    : ModuleUnit(module, {}, only) {}

ModuleUnit::ModuleUnit(ptx::Module& module, std::vector<ptx::CfgPlan> plans,
                       const FunctionSelection& only)
    : module_(&module) {
    auto plan = plans.begin();
    for (size_t item = 0; item < module.items.size(); ++item) {
        auto* function = std::get_if<ptx::Function>(&module.items[item]);
        if (!function || !function->body) continue;
        while (plan != plans.end() && plan->item < item)
            ++plan;
        if (only && !only(function->name)) continue;
        const bool adoptable = plan != plans.end() && plan->item == item && plan->plans(*function);
        ptx::CfgPlan planned =
            adoptable ? std::move(*plan) : ptx::plan_function_cfg(*function, item);
        if (planned.cfg)
            functions_.emplace_back(*function, std::move(*planned.cfg), std::move(planned.starts));
        else
            skipped_.push_back(fmt::format("{}: {}", function->name, planned.error));
    }
}

ModuleUnit::~ModuleUnit() {
    try {
        write_back();
    } catch (...) { // out of memory while laying out: nothing better can be done here
    }
}

FunctionUnit* ModuleUnit::find(const std::string& function) {
    for (auto& f : functions_)
        if (f.function().name == function) return &f;
    return nullptr;
}

std::vector<unsigned> ModuleUnit::versions() const {
    std::vector<unsigned> out;
    out.reserve(functions_.size());
    for (const auto& f : functions_)
        out.push_back(f.version());
    return out;
}

template <typename T, typename Compute>
const T& ModuleUnit::current(Computed<T>& computed, Compute compute) {
    std::vector<unsigned> now = versions();
    if (!computed.value || computed.versions != now) {
        computed.value = std::make_unique<T>(compute());
        computed.versions = std::move(now);
    }
    return *computed.value;
}

const analysis::ModuleDivergence& ModuleUnit::divergence() {
    return current(divergence_, [&] { return analysis::analyze_divergence(*this); });
}

const analysis::ConvergentCode& ModuleUnit::convergent_code() {
    return current(convergent_code_, [&] { return analysis::ConvergentCode(*this); });
}

const ConvergentSites& ModuleUnit::convergent_sites(FunctionUnit& function) {
    return sites_of(function, Conditions::LaneDependent);
}

const ConvergentSites& ModuleUnit::convergent_site_bounds(FunctionUnit& function) {
    return sites_of(function, Conditions::Every);
}

const ConvergentSites& ModuleUnit::sites_of(FunctionUnit& function, Conditions counted) {
    const auto index = static_cast<size_t>(&function - functions_.data());
    CFR_INVARIANT(index < functions_.size(), "convergent sites are asked of the unit's functions");
    auto& computed =
        counted == Conditions::LaneDependent ? convergent_sites_ : convergent_site_bounds_;
    computed.resize(functions_.size());
    return current(computed[index], [&] {
        return find_convergent_sites(*this, function, convergent_code(), counted);
    });
}

void ModuleUnit::declare_module_variable(ptx::Variable variable) {
    module_variables_.push_back(std::move(variable));
}

void ModuleUnit::write_back() {
    for (auto& function : functions_)
        function.write_back();
    if (module_variables_.empty()) return;
    std::vector<std::string> names;
    for (const auto& unit : functions_)
        names.push_back(unit.function().name);
    auto& items = module_->items;
    const auto first_function =
        std::find_if(items.begin(), items.end(), [](const ptx::TopLevel& item) {
            return std::holds_alternative<ptx::Function>(item);
        });
    items.insert(first_function, std::make_move_iterator(module_variables_.begin()),
                 std::make_move_iterator(module_variables_.end()));
    module_variables_.clear();
    // The insertion moved the functions: point every unit at its function again.
    for (size_t i = 0; i < functions_.size(); ++i)
        for (auto& item : items)
            if (auto* function = std::get_if<ptx::Function>(&item);
                function && function->body && function->name == names[i])
                functions_[i].function_ = function;
}

} // namespace cfr::passes
