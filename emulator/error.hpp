// The emulator's errors as values: a kind and a one-line message. Nothing throws across the
// emulator's interfaces; every failure is returned as an Error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace cfr::emu {

enum class ErrorCode {
    Success = 0,
    InvalidPtx,           // the module does not parse or does not decode
    Unsupported,          // an instruction or feature the emulator cannot execute
    InvalidValue,         // a bad argument to an API call
    NotFound,             // no kernel / global of that name
    OutOfMemory,          // an allocation failed
    InvalidAddress,       // host-side copy touching memory that is not allocated
    InvalidLaunch,        // bad grid, block, shared size or parameter buffer
    OutOfBounds,          // a kernel accessed memory outside any allocation / window
    Misaligned,           // a kernel access not aligned to its size
    DivideByZero,         // integer division or remainder by zero
    Trap,                 // trap instruction
    AssertFailed,         // a device-side assertion (__assertfail)
    BarrierDeadlock,      // warps wait at a barrier that can never complete
    NoProgress,           // a warp repeats the same state forever (e.g. an intra-warp spin lock)
    InstructionBudget,    // the launch exceeded its configured instruction budget
    ConvergenceViolation, // strict mode: a convergent instruction run without its lanes
};

const char* to_string(ErrorCode code);

struct Error {
    Error() = default;
    Error(ErrorCode kind, std::string what, std::optional<uint64_t> at = std::nullopt)
        : code(kind), message(std::move(what)), address(at) {}

    ErrorCode code = ErrorCode::Success;
    std::string message;             // one line: what, kernel, PTX line, block and thread, address
    std::optional<uint64_t> address; // the address a faulting memory access used

    bool ok() const { return code == ErrorCode::Success; }
    explicit operator bool() const { return !ok(); } // true when there is an error
};

} // namespace cfr::emu
