// How the emulated driver chooses and loads images, as NVIDIA's does: machine code the device runs
// first (executed through PTX that stands for it), else the newest PTX not above sm_90; PTX whose
// .target is above the device refused; JIT errors deferred to first use under lazy loading and
// reported at load under eager loading; -rdc wrappers linked from their prelinked containers.
#if __has_include(<cuda.h>)
#include "image_fixtures.hpp"

#include <cstring>
#include <fstream>

using namespace image_fixtures;

namespace {

const char* kBadPtx = ".version 8.0\n.target sm_75\n.address_size 64\n this is not ptx";

std::string target_ptx(const char* target) {
    return marking_ptx(target, {"k"}, 1);
}

} // namespace

TEST_CASE("images: the loading mode follows CUDA_MODULE_LOADING, lazy when unset") {
    CUmoduleLoadingMode mode{};
    for (const auto& [value, expected] :
         {std::pair<std::optional<std::string>, CUmoduleLoadingMode>{std::nullopt,
                                                                     CU_MODULE_LAZY_LOADING},
          {"LAZY", CU_MODULE_LAZY_LOADING},
          {"EAGER", CU_MODULE_EAGER_LOADING},
          {"something else", CU_MODULE_LAZY_LOADING}}) {
        EnvGuard env("CUDA_MODULE_LOADING", value);
        CHECK(cuModuleGetLoadingMode(&mode) == CUDA_SUCCESS);
        CHECK(mode == expected);
    }
}

TEST_CASE("images: lazy loading returns a JIT error at every first use, with one message") {
    init_with_context();
    EnvGuard env("CUDA_MODULE_LOADING", std::nullopt);
    StderrCapture err;
    CUmodule module = nullptr;
    REQUIRE(cuModuleLoadData(&module, kBadPtx) == CUDA_SUCCESS);
    CUfunction fn = nullptr;
    CHECK(cuModuleGetFunction(&fn, module, "k") == CUDA_ERROR_INVALID_PTX);
    CHECK(cuModuleGetFunction(&fn, module, "k") == CUDA_ERROR_INVALID_PTX);
    CUdeviceptr global = 0;
    size_t bytes = 0;
    CHECK(cuModuleGetGlobal(&global, &bytes, module, "marker") == CUDA_ERROR_INVALID_PTX);
    unsigned count = 0;
    CHECK(cuModuleGetFunctionCount(&count, module) == CUDA_ERROR_INVALID_PTX);
    CHECK(cuModuleUnload(module) == CUDA_SUCCESS);

    CUlibrary library = nullptr;
    REQUIRE(cuLibraryLoadData(&library, kBadPtx, nullptr, nullptr, 0, nullptr, nullptr, 0) ==
            CUDA_SUCCESS);
    CUkernel kernel = nullptr;
    CHECK(cuLibraryGetKernel(&kernel, library, "k") == CUDA_ERROR_INVALID_PTX);
    CHECK(cuLibraryGetGlobal(&global, &bytes, library, "marker") == CUDA_ERROR_INVALID_PTX);
    CHECK(cuLibraryGetKernelCount(&count, library) == CUDA_ERROR_INVALID_PTX);
    CHECK(cuLibraryUnload(library) == CUDA_SUCCESS);
    const std::string text = err.text();
    INFO(text);
    CHECK(occurrences(text, "this is not ptx") == 0); // the message names the place, once
    CHECK(occurrences(text, "<ptx image>:4:") == 2);  // once per module, once per library
}

TEST_CASE("images: lazy loading JIT-compiles at the first use and runs") {
    init_with_context();
    EnvGuard env("CUDA_MODULE_LOADING", "LAZY");
    const std::string ptx = marking_ptx("sm_75", {"k1", "k2"}, 75);
    CUmodule module = nullptr;
    REQUIRE(cuModuleLoadData(&module, ptx.c_str()) == CUDA_SUCCESS);
    unsigned count = 0;
    CHECK(cuModuleGetFunctionCount(&count, module) == CUDA_SUCCESS);
    CHECK(count == 2);
    CHECK(run_module_kernel(module, "k2") == 75);
    CHECK(cuModuleUnload(module) == CUDA_SUCCESS);

    CUlibrary library = nullptr;
    REQUIRE(cuLibraryLoadData(&library, ptx.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0) ==
            CUDA_SUCCESS);
    CUkernel kernel = nullptr;
    REQUIRE(cuLibraryGetKernel(&kernel, library, "k1") == CUDA_SUCCESS);
    CHECK(run_marking(reinterpret_cast<CUfunction>(kernel)) == 75);
    CUfunction fn = nullptr;
    REQUIRE(cuKernelGetFunction(&fn, kernel) == CUDA_SUCCESS);
    CHECK(run_marking(fn) == 75);
    CHECK(cuLibraryUnload(library) == CUDA_SUCCESS);
}

TEST_CASE("images: eager loading reports the JIT error at load") {
    init_with_context();
    EnvGuard env("CUDA_MODULE_LOADING", "EAGER");
    CUmodule module = nullptr;
    CHECK(cuModuleLoadData(&module, kBadPtx) == CUDA_ERROR_INVALID_PTX);
    CUlibrary library = nullptr;
    CHECK(cuLibraryLoadData(&library, kBadPtx, nullptr, nullptr, 0, nullptr, nullptr, 0) ==
          CUDA_ERROR_INVALID_PTX);
    const std::string ptx = target_ptx("sm_90");
    REQUIRE(cuModuleLoadData(&module, ptx.c_str()) == CUDA_SUCCESS);
    CHECK(run_module_kernel(module, "k") == 1);
    CHECK(cuModuleUnload(module) == CUDA_SUCCESS);
}

TEST_CASE("images: PTX whose .target is above sm_90 is refused with CUDA_ERROR_INVALID_PTX") {
    init_with_context();
    const std::string sm100 = target_ptx("sm_100"), sm120 = target_ptx("sm_120a");
    {
        EnvGuard env("CUDA_MODULE_LOADING", "EAGER");
        StderrCapture err;
        CUmodule module = nullptr;
        CHECK(cuModuleLoadData(&module, sm100.c_str()) == CUDA_ERROR_INVALID_PTX);
        CHECK(cuModuleLoadData(&module, sm120.c_str()) == CUDA_ERROR_INVALID_PTX);
        CHECK_THAT(err.text(),
                   Catch::Contains("SM version specified by .target is higher than default SM "
                                   "version assumed"));
    }
    {
        EnvGuard env("CUDA_MODULE_LOADING", "LAZY");
        CUlibrary library = nullptr;
        REQUIRE(cuLibraryLoadData(&library, sm100.c_str(), nullptr, nullptr, 0, nullptr, nullptr,
                                  0) == CUDA_SUCCESS);
        CUkernel kernel = nullptr;
        CHECK(cuLibraryGetKernel(&kernel, library, "k") == CUDA_ERROR_INVALID_PTX);
        CHECK(cuLibraryUnload(library) == CUDA_SUCCESS);
    }
    // A fatbin with PTX for newer architectures only holds nothing this device can use.
    const std::string fatbin =
        fb::write_container({ptx_entry(100, sm100), ptx_entry(120, target_ptx("sm_120"))});
    CUmodule module = nullptr;
    CHECK(cuModuleLoadData(&module, fatbin.data()) == CUDA_ERROR_NO_BINARY_FOR_GPU);
}

TEST_CASE("images: a fatbin's newest PTX not above sm_90 is JIT-compiled") {
    init_with_context();
    const std::string image =
        fb::write_container({ptx_entry(75, marking_ptx("sm_75", {"k"}, 75)),
                             ptx_entry(86, marking_ptx("sm_86", {"k"}, 86)),
                             ptx_entry(100, marking_ptx("sm_100", {"k"}, 100)),
                             elf_entry(80, cubin_of(marking_ptx("sm_80", {"k"}, 80), 80))});
    CUmodule module = nullptr;
    REQUIRE(cuModuleLoadData(&module, image.data()) == CUDA_SUCCESS);
    CHECK(run_module_kernel(module, "k") == 86);
    CHECK(cuModuleUnload(module) == CUDA_SUCCESS);
}

TEST_CASE("images: machine code the device runs wins, executed through PTX that stands for it") {
    init_with_context();
    const std::string both = marking_ptx("sm_90", {"K1", "K2"}, 90);
    const std::string ptx75_k1 = marking_ptx("sm_75", {"K1"}, 75);
    const std::string ptx75_both = marking_ptx("sm_75", {"K1", "K2"}, 75);
    const std::string ptx100_both = marking_ptx("sm_100", {"K1", "K2"}, 100);
    CUmodule module = nullptr;

    SECTION("its own .nv.cfrjit.ptx section, though the PTX entry lacks a kernel") {
        const std::string image =
            fb::write_container({elf_entry(90, cubin_of(both, 90)), ptx_entry(75, ptx75_k1)});
        REQUIRE(cuModuleLoadData(&module, image.data()) == CUDA_SUCCESS);
        CHECK(run_module_kernel(module, "K2") == 90);
        CHECK(run_module_kernel(module, "K1") == 90);
    }
    SECTION("else a PTX entry of any architecture that defines every kernel and global") {
        const std::string older = fb::write_container(
            {elf_entry(90, cubin_of(both, 90, false)), ptx_entry(75, ptx75_both)});
        REQUIRE(cuModuleLoadData(&module, older.data()) == CUDA_SUCCESS);
        CHECK(run_module_kernel(module, "K2") == 75);
        CHECK(cuModuleUnload(module) == CUDA_SUCCESS);
        // PTX only for a newer architecture still stands for the sm_90 machine code.
        const std::string newer = fb::write_container(
            {elf_entry(90, cubin_of(both, 90, false)), ptx_entry(100, ptx100_both)});
        REQUIRE(cuModuleLoadData(&module, newer.data()) == CUDA_SUCCESS);
        CHECK(run_module_kernel(module, "K1") == 100);
    }
    SECTION("an sm_86 device would not run sm_90 code; sm_80 code does not run on sm_90") {
        const std::string image =
            fb::write_container({elf_entry(80, cubin_of(both, 80)), ptx_entry(75, ptx75_both)});
        REQUIRE(cuModuleLoadData(&module, image.data()) == CUDA_SUCCESS);
        CHECK(run_module_kernel(module, "K1") == 75); // the PTX, JIT-compiled
    }
    if (module) CHECK(cuModuleUnload(module) == CUDA_SUCCESS);
}

TEST_CASE("images: machine code without PTX that defines all of it is refused") {
    init_with_context();
    const std::string both = marking_ptx("sm_90", {"K1", "K2"}, 90);
    CUmodule module = nullptr;
    StderrCapture err;
    // The PTX entry lacks K2.
    std::string image = fb::write_container({elf_entry(90, cubin_of(both, 90, false)),
                                             ptx_entry(75, marking_ptx("sm_75", {"K1"}, 75))});
    CHECK(cuModuleLoadData(&module, image.data()) == CUDA_ERROR_NO_BINARY_FOR_GPU);
    // The PTX entry lacks the global `marker`.
    image = fb::write_container({elf_entry(90, cubin_of(both, 90, false)),
                                 ptx_entry(75, marking_ptx("sm_75", {"K1", "K2"}, 75, false))});
    CHECK(cuModuleLoadData(&module, image.data()) == CUDA_ERROR_NO_BINARY_FOR_GPU);
    // A bare cubin with no PTX at all, for sm_90 and for architectures the device cannot run.
    for (uint32_t sm : {90u, 86u, 100u}) {
        const std::string elf = cubin_of(both, sm, sm != 90);
        CHECK(cuModuleLoadData(&module, elf.data()) == CUDA_ERROR_NO_BINARY_FOR_GPU);
    }
    CHECK_THAT(err.text(), Catch::Contains("cannot run machine code without PTX"));
}

TEST_CASE("images: a bare emulator cubin loads from memory and from a file") {
    init_with_context();
    const std::string elf = cubin_of(marking_ptx("sm_90", {"K1", "K2"}, 90), 90);
    CUmodule module = nullptr;
    REQUIRE(cuModuleLoadData(&module, elf.data()) == CUDA_SUCCESS);
    CHECK(run_module_kernel(module, "K2") == 90);
    CUdeviceptr global = 0;
    size_t bytes = 0;
    CHECK(cuModuleGetGlobal(&global, &bytes, module, "marker") == CUDA_SUCCESS);
    CHECK(bytes == 4);
    CHECK(cuModuleUnload(module) == CUDA_SUCCESS);

    const std::string path = "/tmp/cfrjit_images_test_" + std::to_string(getpid()) + ".cubin";
    std::ofstream(path, std::ios::binary) << elf;
    REQUIRE(cuModuleLoad(&module, path.c_str()) == CUDA_SUCCESS);
    CHECK(run_module_kernel(module, "K1") == 90);
    CHECK(cuModuleUnload(module) == CUDA_SUCCESS);
    std::ofstream(path, std::ios::binary) << elf.substr(0, 100); // headers past the end
    CHECK(cuModuleLoad(&module, path.c_str()) == CUDA_ERROR_INVALID_IMAGE);
    std::remove(path.c_str());
}

TEST_CASE("images: version-2 wrappers link the PTX of their prelinked containers") {
    init_with_context();
    const std::string user = R"(.version 8.0
.target sm_75
.address_size 64
.extern .func (.param .b32 r) seven();
.extern .global .align 4 .u32 shared_value;
.visible .entry use(.param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    {
    .param .b32 r;
    call.uni (r), seven, ();
    ld.param.b32 %r1, [r];
    }
    ld.global.u32 %r2, [shared_value];
    add.s32 %r1, %r1, %r2;
    st.global.u32 [%rd2], %r1;
    ret;
}
)";
    const std::string provider = R"(.version 8.0
.target sm_75
.address_size 64
.visible .global .align 4 .u32 shared_value = 35;
.visible .func (.param .b32 r) seven()
{
    .reg .b32 %r<2>;
    mov.u32 %r1, 7;
    st.param.b32 [r], %r1;
    ret;
}
)";
    const std::string empty = fb::write_container({});
    const std::string first = fb::write_container({ptx_entry(75, user)});
    const std::string second = fb::write_container({ptx_entry(75, provider)});
    // Like libcudadevrt's container: machine code only, for architectures the device cannot run.
    const std::string runtime_only = fb::write_container(
        {elf_entry(75, cubin_of(marking_ptx("sm_75", {"unused"}, 0), 75, false))});
    const void* both[] = {first.data(), second.data(), runtime_only.data(), nullptr};
    Wrapper linked{.version = 2, .data = empty.data(), .prelinked = both};

    CUlibrary library = nullptr;
    REQUIRE(cuLibraryLoadData(&library, &linked, nullptr, nullptr, 0, nullptr, nullptr, 0) ==
            CUDA_SUCCESS);
    CUkernel kernel = nullptr;
    REQUIRE(cuLibraryGetKernel(&kernel, library, "use") == CUDA_SUCCESS);
    CHECK(run_marking(reinterpret_cast<CUfunction>(kernel)) == 42);
    CHECK(cuLibraryUnload(library) == CUDA_SUCCESS);

    // Machine code in `data` that the device runs is used instead.
    const std::string machine =
        fb::write_container({elf_entry(90, cubin_of(marking_ptx("sm_90", {"use"}, 90), 90))});
    Wrapper with_code{.version = 2, .data = machine.data(), .prelinked = both};
    CUmodule module = nullptr;
    REQUIRE(cuModuleLoadFatBinary(&module, &with_code) == CUDA_SUCCESS);
    CHECK(run_module_kernel(module, "use") == 90);
    CHECK(cuModuleUnload(module) == CUDA_SUCCESS);

    // A reference nothing defines: the JIT error, at first use under lazy loading.
    const void* alone[] = {first.data(), nullptr};
    Wrapper unresolved{.version = 2, .data = empty.data(), .prelinked = alone};
    EnvGuard env("CUDA_MODULE_LOADING", "LAZY");
    StderrCapture err;
    REQUIRE(cuLibraryLoadData(&library, &unresolved, nullptr, nullptr, 0, nullptr, nullptr, 0) ==
            CUDA_SUCCESS);
    CHECK(cuLibraryGetKernel(&kernel, library, "use") == CUDA_ERROR_INVALID_PTX);
    CHECK(cuLibraryUnload(library) == CUDA_SUCCESS);
    CHECK_THAT(err.text(), Catch::Contains("unresolved reference to 'seven'"));

    // Nothing usable at all.
    const void* nothing[] = {runtime_only.data(), nullptr};
    Wrapper useless{.version = 2, .data = empty.data(), .prelinked = nothing};
    CHECK(cuLibraryLoadData(&library, &useless, nullptr, nullptr, 0, nullptr, nullptr, 0) ==
          CUDA_ERROR_NO_BINARY_FOR_GPU);
}

TEST_CASE("images: -rdc units whose kernels are all weak or internal are linked") {
    init_with_context();
    const auto unit = [](const std::string& linkage, const std::string& kernel, int mark) {
        std::string ptx = marking_ptx("sm_75", {kernel}, mark, false);
        const std::string visible = ".visible .entry " + kernel;
        ptx.replace(ptx.find(visible), visible.size(), linkage + ".entry " + kernel);
        return fb::write_container({ptx_entry(75, ptx)});
    };
    const std::string empty = fb::write_container({});
    const std::string weak = unit(".weak ", "_Z8templateIiEvPi", 11);
    const std::string internal = unit("", "internal_kernel", 22);
    // Like libcudadevrt's: a kernel, but a reference only the JIT's system calls would resolve.
    std::string runtime_ptx = marking_ptx("sm_75", {"runtime_kernel"}, 33, false);
    runtime_ptx.replace(runtime_ptx.find(".visible .entry"), 15, ".weak .entry");
    runtime_ptx.insert(runtime_ptx.find(".weak .entry"),
                       ".extern .func (.param .b32 r) __cuda_syscall_probe();\n");
    const std::string runtime = fb::write_container({ptx_entry(75, runtime_ptx)});
    const void* units[] = {weak.data(), internal.data(), runtime.data(), nullptr};
    Wrapper linked{.version = 2, .data = empty.data(), .prelinked = units};

    CUlibrary library = nullptr;
    REQUIRE(cuLibraryLoadData(&library, &linked, nullptr, nullptr, 0, nullptr, nullptr, 0) ==
            CUDA_SUCCESS);
    CUkernel kernel = nullptr;
    REQUIRE(cuLibraryGetKernel(&kernel, library, "_Z8templateIiEvPi") == CUDA_SUCCESS);
    CHECK(run_marking(reinterpret_cast<CUfunction>(kernel)) == 11);
    REQUIRE(cuLibraryGetKernel(&kernel, library, "internal_kernel") == CUDA_SUCCESS);
    CHECK(run_marking(reinterpret_cast<CUfunction>(kernel)) == 22);
    CHECK(cuLibraryGetKernel(&kernel, library, "runtime_kernel") == CUDA_ERROR_NOT_FOUND);
    CHECK(cuLibraryUnload(library) == CUDA_SUCCESS);
}
#endif
