// Linking PTX modules into one, as NVIDIA's JIT linker does for relocatable device code (-rdc):
// `.extern` functions and variables resolve against `.visible` (or `.weak`/`.common`) definitions
// in other inputs, one definition of each symbol is kept, and each input's internal symbols are
// renamed where they would clash with another input's.
#pragma once

#include "ptx/ir.hpp"

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cfr::ptx {

class LinkError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct LinkInput {
    std::string name; // for messages: a file name, "prelinked container 2", ...
    Module module;
    // Linked only if another linked input references something it defines, as members of an
    // archive are (libcudadevrt's container among the prelinked ones of a -rdc program).
    bool library = false;
};

// The linked module: the highest .version and .target of the inputs, their items in input order.
// Throws LinkError naming the symbol and the inputs for an unresolved reference, a duplicate
// definition, or inputs with different address sizes.
Module link_modules(std::vector<LinkInput> inputs);

// Functions the JIT provides itself (vprintf, malloc, free, __assertfail,
// cudaGraphSetConditional): references to them stay `.extern` and are never unresolved.
bool is_system_function(std::string_view name);

} // namespace cfr::ptx
