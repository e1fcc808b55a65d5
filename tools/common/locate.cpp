// Locating the shim, the emulated driver and a real driver.
#include "tools/common/locate.hpp"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

namespace fs = std::filesystem;

namespace cfr::cli {

namespace {

struct Layout {
    const char* shim_dir;   // relative to cfrjit's directory
    const char* driver_dir; // relative to cfrjit's directory
};

// Both relative paths come from the build (tools/CMakeLists.txt).
constexpr Layout kInstalled{CFRJIT_INSTALLED_SHIM_DIR, CFRJIT_INSTALLED_DRIVER_DIR};
constexpr Layout kBuildTree{CFRJIT_BUILD_SHIM_DIR, CFRJIT_BUILD_DRIVER_DIR};

const Layout& layout_paths(Origin origin) {
    return origin == Origin::BuildTree ? kBuildTree : kInstalled;
}

const char* environment(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr && *value != '\0' ? value : nullptr;
}

} // namespace

std::string_view to_string(Origin origin) {
    switch (origin) {
    case Origin::NotFound:
        return "not found";
    case Origin::Environment:
        return "from the environment";
    case Origin::Installed:
        return "installed";
    case Origin::BuildTree:
        return "build tree";
    }
    return "?";
}

fs::path self_dir() {
    char self[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return fs::current_path();
    self[n] = '\0';
    return fs::path(self).parent_path();
}

Origin layout() {
    std::error_code ec;
    return fs::equivalent(self_dir(), CFRJIT_BUILD_BIN_DIR, ec) ? Origin::BuildTree
                                                                : Origin::Installed;
}

Located find_shim() {
    if (const char* env = environment("CFRJIT_SHIM_LIB")) return {env, Origin::Environment};
    const Origin origin = layout();
    const fs::path shim = self_dir() / layout_paths(origin).shim_dir / "libcfrjit.so";
    if (!fs::exists(shim)) return {};
    return {fs::weakly_canonical(shim), origin};
}

Located find_emulator_dir() {
    if (const char* env = environment("CFRJIT_EMULATOR_LIB")) {
        const fs::path p(env);
        return {fs::is_directory(p) ? p : p.parent_path(), Origin::Environment};
    }
    const Origin origin = layout();
    const fs::path dir = self_dir() / layout_paths(origin).driver_dir;
    if (!fs::exists(dir / "libcuda.so.1")) return {};
    return {fs::weakly_canonical(dir), origin};
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
