// Locating the shim, the emulated driver and a real driver.
#include "tools/cfrjit/locate.hpp"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

namespace fs = std::filesystem;

namespace cfr::cli {

fs::path self_dir() {
    char self[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return fs::current_path();
    self[n] = '\0';
    return fs::path(self).parent_path();
}

fs::path find_shim() {
    if (const char* env = std::getenv("CFRJIT_SHIM_LIB"); env && *env) return env;
    const fs::path bin = self_dir();
    for (const fs::path& c : {bin / "../lib/libcfrjit.so", bin / "../../lib/libcfrjit.so",
                              fs::path(CFRJIT_SHIM_DIR) / "libcfrjit.so"})
        if (fs::exists(c)) return fs::weakly_canonical(c);
    return {};
}

fs::path find_emulator_dir() {
    if (const char* env = std::getenv("CFRJIT_EMULATOR_LIB"); env && *env) {
        fs::path p(env);
        return fs::is_directory(p) ? p : p.parent_path();
    }
    const fs::path bin = self_dir();
    for (const fs::path& c : {bin / "../emulator/driver/lib", bin / "../../emulator/driver/lib",
                              bin / "../lib/cfrjit", fs::path(CFRJIT_DRIVER_DIR)})
        if (fs::exists(c / "libcuda.so.1")) return fs::weakly_canonical(c);
    return {};
}

bool nvidia_driver_present(const fs::path& emulator_dir) {
    if (fs::exists("/proc/driver/nvidia/version")) return true;
    void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (h == nullptr) return false;
    link_map* map = nullptr;
    bool real = true;
    if (dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr) {
        std::error_code ec;
        const fs::path lib = fs::weakly_canonical(map->l_name, ec);
        if (!emulator_dir.empty() && lib == fs::weakly_canonical(emulator_dir / "libcuda.so.1", ec))
            real = false;
    }
    dlclose(h);
    return real;
}

} // namespace cfr::cli
