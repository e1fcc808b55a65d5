// Tests that misuse a handle on purpose and check the error code run with the emulated driver's
// strict mode off for that scope (CTest sets CFRJIT_EMULATOR_STRICT=1 for everything else).
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

class StrictModeOff {
public:
    StrictModeOff() {
        if (const char* v = std::getenv("CFRJIT_EMULATOR_STRICT")) saved_ = v;
        setenv("CFRJIT_EMULATOR_STRICT", "0", 1);
    }
    ~StrictModeOff() {
        if (saved_)
            setenv("CFRJIT_EMULATOR_STRICT", saved_->c_str(), 1);
        else
            unsetenv("CFRJIT_EMULATOR_STRICT");
    }
    StrictModeOff(const StrictModeOff&) = delete;
    StrictModeOff& operator=(const StrictModeOff&) = delete;

private:
    std::optional<std::string> saved_;
};
