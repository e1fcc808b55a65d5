// The report when the shim is unloaded, for programs that loaded code but never launched (a launch
// registers an exit handler that runs while the driver is still usable).
#include "runtime/session.hpp"

__attribute__((destructor)) static void cfrjit_shim_unload() {
    if (auto* session = cfr::runtime::Session::existing()) session->finish();
}
