// Names of the emulator's error kinds (error.hpp).
#include "emulator/error.hpp"

namespace cfr::emu {

const char* to_string(ErrorCode c) {
    switch (c) {
    case ErrorCode::Success:
        return "success";
    case ErrorCode::InvalidPtx:
        return "invalid PTX";
    case ErrorCode::Unsupported:
        return "unsupported";
    case ErrorCode::InvalidValue:
        return "invalid value";
    case ErrorCode::NotFound:
        return "not found";
    case ErrorCode::OutOfMemory:
        return "out of memory";
    case ErrorCode::InvalidAddress:
        return "invalid address";
    case ErrorCode::InvalidLaunch:
        return "invalid launch";
    case ErrorCode::OutOfBounds:
        return "out-of-bounds access";
    case ErrorCode::Misaligned:
        return "misaligned access";
    case ErrorCode::DivideByZero:
        return "integer division by zero";
    case ErrorCode::Trap:
        return "trap";
    case ErrorCode::AssertFailed:
        return "device-side assertion failed";
    case ErrorCode::BarrierDeadlock:
        return "barrier deadlock";
    case ErrorCode::NoProgress:
        return "no progress";
    case ErrorCode::InstructionBudget:
        return "instruction budget exceeded";
    case ErrorCode::ConvergenceViolation:
        return "convergence violation";
    }
    return "unknown";
}

} // namespace cfr::emu
