// The cost model that decides whether a linearization pays, per region and per loop: estimated
// cycles of the original control flow against those of the linearized one.
//
// Instruction weights (static), by the cost class of the opcode table (ptx/opcode_properties.hpp):
// approximate issue cost of one warp instruction relative to an FP32 add (Weights::Gpu): MUFU
// transcendentals 4, double precision 2, global/local/generic memory 4, shared 2, atomics 8,
// full-precision division and square root 10, integer division and remainder 20, calls 10,
// barriers 4, everything else 1. Weights::Unit counts every instruction as 1, which is
// what the emulator's warp-instruction count measures; the model is calibrated against it.
//
// Executions (per warp, per pass through a region or per loop iteration) come from a symbolic run
// of the reconvergence stack: at a branch the divergence analysis calls divergent the warp splits
// with probability kSplit (every side runs up to the branch's immediate post-dominator) and
// otherwise goes down one side as a whole; at a uniform branch it goes down each side with equal
// probability. Retreating edges are not followed. With a profile (emulator counts of the original
// kernel) the measured executions and divergence replace the estimates.
//
// Region (selective linearization): before = sum of weight x expected executions; after = each
// block at most once per sweep, plus the guard checks and assignments linearization adds.
// Loop merging (seed 002 section 5.2): for an inner loop L in an outer loop O, per outer iteration
//   before = W_o + m W_i
//   after  = s (W_i + C + r W_o),  s = m / g + 1 sweeps, r = 1 - (1 - 1/s)^lanes
// with W_i the cost of one iteration of L, W_o the rest of O, C the control one merged sweep adds,
// m the warp's inner iterations per outer iteration, g = 2(d+1)/(d+2) the gain of letting lanes
// with short trips run ahead when d of the warp's lanes leave L at different times (d = 0: no
// gain), and r the chance that some lane runs the outer part in a sweep. Without a profile m = 16
// and d = lanes - 1 (trip counts spread over the warp).
#pragma once

#include "ptx/cfg.hpp"
#include "ptx/digraph.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cfr::linearize {

enum class Weights { Gpu, Unit };

double instruction_weight(const ptx::Instruction& instruction, Weights weights);
double block_weight(const ptx::BasicBlock& block, Weights weights);

// Emulator counts of one function of the original kernel, by PTX line: executions of the block
// that starts there, visits and divergent visits of the branch there.
struct FunctionProfile {
    struct BlockCount {
        double executions = 0;
        double redundant = 0;
    };
    struct BranchCount {
        double visits = 0;
        double divergent = 0;
    };
    std::map<uint32_t, BlockCount> blocks;
    std::map<uint32_t, BranchCount> branches;
};

struct Profile {
    std::map<std::string, FunctionProfile> functions;
    std::string source; // the file it was read from

    const FunctionProfile* find(const std::string& function) const;
};

// Reads the JSON that `cfr-run --json` writes (or one kernel's emulator statistics). Throws
// std::runtime_error naming the file on failure.
Profile load_profile(const std::string& path);

// What the cost model knows about one function.
class FunctionCosts {
public:
    FunctionCosts(const ptx::Cfg& cfg, const Digraph& graph, const std::vector<NodeId>& ipdom,
                  std::vector<bool> divergent, Weights weights, const FunctionProfile* profile);

    double weight(NodeId block) const { return weights_[block]; }
    bool divergent(NodeId block) const { return divergent_[block]; }
    bool profiled() const { return profile_ != nullptr; }

    // Expected executions per warp of every block met from `start` (counted wherever it is)
    // until control leaves `scope` or reaches `stop`, following forward edges only (edges to a
    // later block in reverse post-order).
    std::vector<double> executions(NodeId start, const std::vector<bool>& scope, NodeId stop) const;

    // Profile counts of a block and of its branch (nullopt without a profile or a match).
    std::optional<double> measured_executions(NodeId block) const;
    std::optional<double> measured_redundant(NodeId block) const;
    std::optional<FunctionProfile::BranchCount> measured_branch(NodeId block) const;

private:
    const ptx::Cfg& cfg_;
    const Digraph& graph_;
    std::vector<NodeId> ipdom_;
    std::vector<bool> divergent_;
    std::vector<double> weights_;
    const FunctionProfile* profile_;
    std::vector<uint32_t> first_line_, branch_line_, rpo_index_;

    void walk(NodeId n, NodeId stop, double w, const std::vector<bool>& scope,
              std::vector<double>& acc, size_t& budget) const;
};

struct RegionEstimate {
    double before = 0; // cycles per pass through the region
    double after = 0;
    bool measured = false; // from a profile
    bool pays() const { return after < before; }
};

struct MergeEstimate {
    double inner = 0;   // W_i
    double outer = 0;   // W_o
    double control = 0; // C
    double trips = 0;   // m
    double gain = 0;    // g
    double before = 0;  // per outer iteration
    double after = 0;
    bool measured = false;
    bool pays() const { return after < before; }
};

// The parameters the model assumes without a profile.
inline constexpr double kSplit = 0.5; // chance that a divergent branch splits a warp
inline constexpr double kStaticTrips = 16;
inline constexpr double kLanes = 32;

double merge_gain(double divergent_exits_per_outer_iteration);
double merged_cost(double inner, double outer, double control, double trips, double gain);

} // namespace cfr::linearize
