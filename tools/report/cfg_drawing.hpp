// The CFGs of a changed kernel before and after the pipeline, as SVG: the dot files that
// CFRJIT_DUMP_DIR holds (runtime/session.cpp: <module>-<key>[-u<unit>].<kernel>.{orig,new}.dot),
// laid out by Graphviz's `dot` where it is installed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace cfr::report {

// Graphs with more blocks than this are not drawn (the page says so): dot takes seconds on them
// and the drawing is unreadable.
inline constexpr size_t kMaxDrawnBlocks = 200;

// $CFRJIT_DOT, else `dot` on PATH; nullopt when neither is an executable file.
std::optional<std::filesystem::path> find_dot();

struct DotPair {
    std::filesystem::path before, after;
    std::filesystem::path original_ptx;
    std::filesystem::path ptx; // the rewritten PTX, as the program loaded it
};

// The dump's dot files (and rewritten PTX) of `kernel` in module `module_id` whose cache key is
// `key` (16 hex digits); nullopt when the dump holds no pair for it.
std::optional<DotPair> find_dot_pair(const std::filesystem::path& dump_dir, uint64_t module_id,
                                     const std::string& key, const std::string& kernel);

// The dump of a kernel the adaptive policy had variants of: the original's dot file and PTX, and
// per variant (by the name of its pipeline) its dot file and PTX.
struct VariantDots {
    std::filesystem::path original, original_ptx;
    struct Variant {
        std::string pipeline;
        std::filesystem::path dot, ptx;
    };
    std::vector<Variant> variants;
};

// From <stem>.variants.tsv and the dot files beside it; nullopt when the dump holds none for the
// kernel.
std::optional<VariantDots> find_variant_dots(const std::filesystem::path& dump_dir,
                                             uint64_t module_id, const std::string& key,
                                             const std::string& kernel);

// The number of blocks a dump's dot file draws (its box nodes).
size_t count_blocks(const std::string& dot_text);

// A branch to colour in a drawing: its instruction as the PTX prints it ("@%p1 bra $L__BB0_6;")
// and its counts.
struct DivergentBranch {
    std::string instruction;
    uint64_t divergent = 0, visits = 0;
};

// `dot_text` with the block of each branch filled in red, as deep as its share of the most
// divergent branch's count, and its counts added to the block's label. A branch whose
// instruction is in no block, or in several, is left out.
std::string mark_divergent(std::string dot_text, const std::vector<DivergentBranch>& branches);

// The SVG element `dot -Tsvg` makes of `dot_text`, without the XML prologue, ready to inline;
// nullopt (and `error` set) when dot fails.
std::optional<std::string> render_svg(const std::filesystem::path& dot, const std::string& dot_text,
                                      std::string& error);

} // namespace cfr::report
