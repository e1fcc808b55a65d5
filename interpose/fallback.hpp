// Falling back to the original image at any time. Under lazy loading the driver compiles a module
// at first use (getting a function or kernel, a global, an attribute, a launch), so it may refuse
// a rewritten module long after the load succeeded. Then the shim loads the original image, and
// every handle of the rewritten module the program holds or asks for is translated to the same
// object of the original, for the rest of the program: the program never sees the error.
#pragma once

#include "interpose/cuda_abi.hpp"

#include <cstdint>

namespace cfr::interpose {

// The driver could not compile the module: its code, not the program's call, is at fault.
bool is_refusal(CUresult r);

// A rewritten module (`library` false: a CUmodule of `context`) or library the driver accepted.
void rewritten_loaded(const void* owner, bool library, uint32_t module, CUcontext context);
// The program unloads a module or library: the original standing in for it goes too. Returns
// the original's handle when there was one (the caller unloads it).
void* owner_unloaded(const void* owner);
// The context is gone, with its modules and what stood in for them.
void forget_owners_in(CUcontext context);

// A function or kernel handle the program got, by name, from a module or library.
void function_obtained(const void* function, const void* owner, const char* name);
// Another handle for the same function (cuKernelGetFunction of a kernel).
void function_aliased(const void* function, const void* known);

// The original module or library standing in for `owner`, null when there is none (yet).
void* replacement_of_owner(const void* owner);
// Loads the original in place of `owner` after the driver refused it with `error`; null when
// `owner` is no rewritten module or the original cannot be loaded.
void* replace_owner(const void* owner, CUresult error);

// The original's function or kernel standing in for `function`; `function` itself when there is
// none. Cheap when nothing was ever refused.
const void* translated(const void* function);
// Replaces the owner of `function` after a refusal and returns the same-named function or kernel
// of the original; null when it cannot.
const void* replace_function(const void* function, CUresult error);

// Runs `call(target)` on a module or library handle: the original standing in for `owner` if
// there is one, else `owner`, and the original after a refusal.
template <class Call>
CUresult with_owner(const void* owner, Call&& call) {
    const void* target = replacement_of_owner(owner);
    if (target == nullptr) target = owner;
    CUresult r = call(const_cast<void*>(target));
    if (target == owner && is_refusal(r))
        if (void* original = replace_owner(owner, r)) r = call(original);
    return r;
}

// Runs `call(target)` on a function or kernel handle: translated, and replaced after a refusal.
template <class Call>
CUresult with_function(const void* function, Call&& call) {
    const void* target = translated(function);
    CUresult r = call(const_cast<void*>(target));
    if (target == function && is_refusal(r))
        if (const void* original = replace_function(function, r))
            r = call(const_cast<void*>(original));
    return r;
}

} // namespace cfr::interpose
