// The adaptive policy's variants on the driver: a kernel's variant module is loaded lazily, in the
// context that launches it, from the PTX the runtime prepared; launches run the variant's function
// with the program's arguments. A variant the driver refuses to load, or whose launch fails where
// the original's succeeds, is dropped (one log line) and the launch runs the original. Variant
// modules go with the program's module they stand beside (when it is unloaded in their context),
// and with their context.
#pragma once

#include "interpose/cuda_abi.hpp"
#include "runtime/adaptive.hpp"
#include "runtime/timing.hpp"

namespace cfr::interpose {

struct VariantPick {
    runtime::AdaptiveSelector::Choice choice;
    const void* function = nullptr; // the variant's CUfunction; null: run the program's own
};

// The variant for this launch of kernel `kernel` (the program's `original` function or kernel
// handle); `timed` says whether its time will be read.
VariantPick pick_variant(uint32_t kernel, const void* original, runtime::Dim3 grid,
                         runtime::Dim3 block, bool timed);
// The launch of `pick` failed with `error` where the original's launch succeeded.
void variant_failed(uint32_t kernel, const VariantPick& pick, CUresult error);

// The program unloaded module `module` (the runtime's id): its variant modules go too.
void variants_module_unloaded(uint32_t module);
// The context ended (or is about to, with everything in it): forget its variant modules.
void variants_context_gone(CUcontext context);

} // namespace cfr::interpose
