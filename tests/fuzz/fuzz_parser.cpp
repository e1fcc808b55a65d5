// libFuzzer target for the PTX parser: any input either parses, and then reprints to a module
// that parses back equal, or is rejected with a ParseError.
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    cfr::ptx::Module module;
    try {
        module = cfr::ptx::parse(text, "fuzz.ptx");
    } catch (const cfr::ptx::ParseError&) {
        return 0;
    }
    std::string printed = cfr::ptx::print(module);
    try {
        if (!(cfr::ptx::parse(printed, "reprinted.ptx") == module)) std::abort();
    } catch (const cfr::ptx::ParseError&) {
        std::abort();
    }
    return 0;
}
