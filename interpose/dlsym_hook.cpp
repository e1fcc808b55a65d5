// dlsym, defined without a symbol version so that it answers both dlsym@GLIBC_2.34 (programs
// with static cudart) and dlsym@GLIBC_2.2.5 (libcudart.so): a lookup of a wrapped driver entry
// point by its exact export name gets the shim's wrapper; everything else gets libc's answer.
#include "interpose/hooks.hpp"
#include "interpose/real_driver.hpp"

#include <dlfcn.h>
#include <link.h>

namespace {

// RTLD_NEXT must mean "after the caller", not "after the shim": search the objects that follow
// the caller's in load order.
void* next_after(const void* caller, const char* name) {
    Dl_info info;
    link_map* map = nullptr;
    if (dladdr1(caller, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0 ||
        map == nullptr)
        return cfr::interpose::real_dlsym()(RTLD_NEXT, name);
    for (link_map* m = map->l_next; m != nullptr; m = m->l_next)
        if (void* p = cfr::interpose::real_dlsym()(m, name)) return p;
    return nullptr;
}

} // namespace

extern "C" __attribute__((visibility("default"))) void* dlsym(void* handle, const char* name) {
    using namespace cfr::interpose;
    const DlsymFn libc_dlsym = real_dlsym();
    if (libc_dlsym == nullptr) return nullptr;
    void* result = handle == RTLD_NEXT ? next_after(__builtin_return_address(0), name)
                                       : libc_dlsym(handle, name);
    if (result == nullptr || name[0] != 'c' || name[1] != 'u') return result;
    Hook* h = find_hook(name);
    if (h == nullptr) return result;
    return wrap(static_cast<HookId>(h - &hook(static_cast<HookId>(0))), result);
}
