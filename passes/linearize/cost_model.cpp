// Instruction weights, emulator profiles and expected executions for the linearization cost model:
// see cost_model.hpp.
#include "passes/linearize/cost_model.hpp"

#include "passes/analysis/loops.hpp"
#include "ptx/opcode_properties.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>

namespace cfr::linearize {
namespace {

using ptx::Modifier;

bool is_f64(const ptx::Instruction& in) {
    return in.has(ptx::Type::F64);
}

double memory_weight(const ptx::Instruction& in) {
    if (in.has(Modifier::Shared)) return 2;
    if (in.has(Modifier::Param) || in.has(Modifier::Const)) return 1;
    return 4;
}

// By the opcode's cost class (ptx/opcode_properties.hpp).
double gpu_weight(const ptx::Instruction& in) {
    switch (ptx::properties(in).cost) {
    case ptx::CostClass::Transcendental:
        return 4;
    case ptx::CostClass::Root:
        return in.has(Modifier::Approx) ? 4 : (is_f64(in) ? 20 : 10);
    case ptx::CostClass::Divide:
        if (in.has(Modifier::Approx)) return 4;
        return in.has(ptx::Type::F32) ? 10 : 20;
    case ptx::CostClass::Memory:
        return memory_weight(in);
    case ptx::CostClass::Atomic:
        return 8;
    case ptx::CostClass::Call:
        return 10;
    case ptx::CostClass::Barrier:
        return 4;
    case ptx::CostClass::Plain:
        break;
    }
    return is_f64(in) ? 2 : 1;
}

const ptx::Instruction* first_instruction(const ptx::BasicBlock& block) {
    for (const auto& s : block.statements)
        if (const auto* in = std::get_if<ptx::Instruction>(&s)) return in;
    return nullptr;
}

void read_kernel(const nlohmann::json& k, Profile& profile) {
    for (const auto& b : k.value("basic_blocks", nlohmann::json::array())) {
        auto& f = profile.functions[b.value("function", std::string{})];
        auto& count = f.blocks[b.value("line", 0u)];
        count.executions += b.value("executions", 0.0);
        count.redundant += b.value("redundant", 0.0);
    }
    for (const auto& b : k.value("divergence_map", nlohmann::json::array())) {
        auto& f = profile.functions[b.value("function", std::string{})];
        auto& count = f.branches[b.value("line", 0u)];
        count.visits += b.value("visits", 0.0);
        count.divergent += b.value("divergent", 0.0);
    }
}

} // namespace

double instruction_weight(const ptx::Instruction& instruction, Weights weights) {
    return weights == Weights::Unit ? 1.0 : gpu_weight(instruction);
}

double block_weight(const ptx::BasicBlock& block, Weights weights) {
    double sum = 0;
    for (const auto& s : block.statements)
        if (const auto* in = std::get_if<ptx::Instruction>(&s))
            sum += instruction_weight(*in, weights);
    return sum;
}

const FunctionProfile* Profile::find(const std::string& function) const {
    const auto it = functions.find(function);
    return it == functions.end() ? nullptr : &it->second;
}

Profile load_profile(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read the profile " + path);
    nlohmann::json json;
    try {
        in >> json;
    } catch (const std::exception& e) {
        throw std::runtime_error("the profile " + path + " is not JSON: " + e.what());
    }
    Profile profile;
    profile.source = path;
    if (json.contains("kernels"))
        for (const auto& k : json["kernels"])
            read_kernel(k, profile);
    else
        read_kernel(json, profile);
    if (profile.functions.empty())
        throw std::runtime_error("the profile " + path +
                                 " holds no basic-block counts (write it with cfr-run --json)");
    return profile;
}

FunctionCosts::FunctionCosts(const ptx::Cfg& cfg, const Digraph& graph,
                             const std::vector<NodeId>& ipdom, std::vector<bool> divergent,
                             Weights weights, const FunctionProfile* profile)
    : cfg_(cfg), graph_(graph), ipdom_(ipdom), divergent_(std::move(divergent)), profile_(profile) {
    weights_.assign(graph.size(), 0.0);
    rpo_index_.assign(graph.size(), UINT32_MAX);
    const auto rpo = analysis::reverse_post_order(graph, 0);
    for (uint32_t i = 0; i < rpo.size(); ++i)
        rpo_index_[rpo[i]] = i;
    first_line_.assign(graph.size(), 0);
    branch_line_.assign(graph.size(), 0);
    for (NodeId b = 0; b < cfg.blocks.size(); ++b) {
        weights_[b] = block_weight(cfg.blocks[b], weights);
        if (const auto* in = first_instruction(cfg.blocks[b])) first_line_[b] = in->loc.line;
        if (const auto* t = cfg.blocks[b].terminator()) branch_line_[b] = t->loc.line;
    }
}

std::vector<double> FunctionCosts::executions(NodeId start, const std::vector<bool>& scope,
                                              NodeId stop) const {
    std::vector<double> acc(graph_.size(), 0.0);
    size_t budget = 200000;
    std::vector<bool> with_start = scope;
    if (start < with_start.size()) with_start[start] = true;
    walk(start, stop, 1.0, with_start, acc, budget);
    if (budget == 0) std::fill(acc.begin(), acc.end(), 1.0); // too many paths to follow
    return acc;
}

void FunctionCosts::walk(NodeId n, NodeId stop, double w, const std::vector<bool>& scope,
                         std::vector<double>& acc, size_t& budget) const {
    while (n != stop && n < scope.size() && scope[n] && budget > 0) {
        --budget;
        acc[n] += w;
        std::vector<NodeId> next;
        for (NodeId s : graph_.succ[n])
            if (rpo_index_[s] > rpo_index_[n] &&
                std::find(next.begin(), next.end(), s) == next.end())
                next.push_back(s);
        if (next.empty()) return;
        if (next.size() == 1) {
            n = next.front();
            continue;
        }
        if (divergent_[n]) {
            // The warp splits with probability kSplit: every side runs up to the branch's
            // immediate post-dominator; otherwise it goes one way as a whole.
            const NodeId r = ipdom_[n];
            for (NodeId s : next) {
                walk(s, r, w * kSplit, scope, acc, budget);
                walk(s, stop, w * (1 - kSplit) / double(next.size()), scope, acc, budget);
            }
            // The lanes meet again at r; where r lies behind (a loop's header), the pass ends.
            if (r == stop || r >= rpo_index_.size() || rpo_index_[r] <= rpo_index_[n]) return;
            w *= kSplit;
            n = r;
            continue;
        }
        for (NodeId s : next)
            walk(s, stop, w / double(next.size()), scope, acc, budget);
        return;
    }
}

std::optional<double> FunctionCosts::measured_executions(NodeId block) const {
    if (!profile_ || block >= cfg_.blocks.size()) return std::nullopt;
    const auto it = profile_->blocks.find(first_line_[block]);
    if (it == profile_->blocks.end()) return std::nullopt;
    return it->second.executions;
}

std::optional<double> FunctionCosts::measured_redundant(NodeId block) const {
    if (!profile_ || block >= cfg_.blocks.size()) return std::nullopt;
    const auto it = profile_->blocks.find(first_line_[block]);
    if (it == profile_->blocks.end()) return std::nullopt;
    return it->second.redundant;
}

std::optional<FunctionProfile::BranchCount> FunctionCosts::measured_branch(NodeId block) const {
    if (!profile_ || block >= cfg_.blocks.size()) return std::nullopt;
    const auto it = profile_->branches.find(branch_line_[block]);
    if (it == profile_->branches.end()) return std::nullopt;
    return it->second;
}

double merge_gain(double d) {
    d = std::max(0.0, d);
    return 2.0 * (d + 1.0) / (d + 2.0);
}

double merged_cost(double inner, double outer, double control, double trips, double gain) {
    const double sweeps = trips / gain + 1.0;
    const double r = 1.0 - std::pow(1.0 - 1.0 / sweeps, kLanes);
    return sweeps * (inner + control + r * outer);
}

} // namespace cfr::linearize
