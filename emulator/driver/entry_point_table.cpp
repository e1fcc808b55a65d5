// Every entry point NVIDIA's libcuda exports (entry_points.inc). Each is defined here weakly as
// "not supported": the implemented ones are defined strongly elsewhere in the library and replace
// these at link time. The table of names and addresses serves cuGetProcAddress. This file must not
// include cuda.h: the weak definitions give every entry point the same placeholder signature.
#include <cstddef>

namespace cfr::driver {
int unsupported(const char* name);

struct ExportAddress {
    const char* name;
    void* address;
};
} // namespace cfr::driver

#define CFRJIT_EXPORT(name)                                                                        \
    extern "C" __attribute__((weak, visibility("default"))) int name() {                           \
        return cfr::driver::unsupported(#name);                                                    \
    }
#include "emulator/driver/entry_points.inc"
#undef CFRJIT_EXPORT

namespace cfr::driver {

extern const ExportAddress kExportAddresses[] = {
#define CFRJIT_EXPORT(name) {#name, reinterpret_cast<void*>(&name)},
#include "emulator/driver/entry_points.inc"
#undef CFRJIT_EXPORT
};
extern const size_t kExportCount = sizeof kExportAddresses / sizeof kExportAddresses[0];

} // namespace cfr::driver
