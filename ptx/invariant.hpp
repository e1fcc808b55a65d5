// Internal invariants: what an algorithm relies on, checked where it relies on it. A broken one is
// a bug in cfrjit, never a fault of the input: CFR_INVARIANT throws InternalError naming the file,
// the line, the condition and what it means. A test sees the exception and fails; the shim turns
// it, like any failure of the passes, into its fallback: the original image and one log line.
#pragma once

#include <source_location>
#include <stdexcept>

namespace cfr {

class InternalError : public std::logic_error {
public:
    using std::logic_error::logic_error;
};

[[noreturn]] void invariant_failed(const char* condition, const char* meaning,
                                   std::source_location where);

} // namespace cfr

// CFR_INVARIANT(condition, "what it means"): the condition must hold here.
#define CFR_INVARIANT(condition, meaning)                                                          \
    ((condition) ? void(0)                                                                         \
                 : ::cfr::invariant_failed(#condition, meaning, std::source_location::current()))
