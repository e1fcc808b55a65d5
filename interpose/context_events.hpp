// The shim's own driver objects, the timing events, kept per context, and the end of a context:
// every way a context ends retires what the shim holds in it first, and nothing of a context that
// is gone is handed to the driver again (NVIDIA's driver does not check handles: use after
// destroy crashes).
#pragma once

#include "interpose/cuda_abi.hpp"
#include "runtime/timing.hpp"

namespace cfr::interpose {

// Two events of `context` (current) for timing a launch, from its pool; false when none can be
// made.
bool take_events(CUcontext context, CUevent& start, CUevent& end);
void give_back_events(CUcontext context, CUevent start, CUevent end);

// The driver calls that read pending launches (cuEventQuery, cuEventElapsedTime) and return their
// events to the pool.
const runtime::EventOps& event_ops();

// `context` is about to end and is still usable: reads what is complete of its launches, loses
// the rest, destroys the shim's events in it, and forgets its modules.
void context_ending(CUcontext context);
// `context` ended without the shim seeing it first: forgets everything of it, touching nothing.
void context_gone(CUcontext context);

// The primary context of `device`, as cuDevicePrimaryCtxRetain last handed it out; null when
// the shim has not seen it.
void primary_retained(CUdevice device, CUcontext context);
CUcontext known_primary(CUdevice device);
// Whether the primary context of `device` is active (retained by someone), per the driver.
bool primary_active(CUdevice device);

} // namespace cfr::interpose
