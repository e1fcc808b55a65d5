// Reading the divergence map's counters back from the device (CFRJIT_DIVERGENCE_MAP): only at
// points where the program itself waits for the device or lets go of a module or context, so the
// shim adds no synchronisation of its own; never while the legacy stream is captured into a graph.
#pragma once

#include "interpose/cuda_abi.hpp"
#include "runtime/timing.hpp"

#include <cstdint>

namespace cfr::interpose {

// Whether the shim is on and maps divergence.
bool divergence_map_on();
// A kernel (or a graph, `what`) was launched in the current context: its module's counters there
// are worth reading from now on.
void counters_launched(runtime::Timed what, uint32_t id);
// Snapshots of the counters of every module instance in `context`: after the program
// synchronised it, or before it ends.
void read_counters_in(CUcontext context);
// The last snapshots of every module instance in `context`, which is about to end (destroyed, or
// a primary context reset): the counters are set to zero after the read, so that a driver that
// keeps the memory for the next context cannot have the same visits counted twice.
void read_last_counters_in(CUcontext context);
// Snapshots of the counters of a module or library the program is about to unload.
void read_counters_of(const void* module_handle);
// At exit: snapshots of every instance whose context is still alive.
void read_all_counters();

} // namespace cfr::interpose
