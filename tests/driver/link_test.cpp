// cuLink* on the emulated driver: PTX, fatbin and cubin inputs linked into an emulator cubin that
// cuModuleLoadData and cuLibraryLoadData accept, and the errors: bad PTX, unresolved and duplicate
// symbols, unsupported input types, missing files, a link state used after cuLinkDestroy.
#if __has_include(<cuda.h>)
#include "image_fixtures.hpp"

#include <cstring>
#include <fstream>

using namespace image_fixtures;

namespace {

const std::string kCaller = R"(.version 8.0
.target sm_75
.address_size 64
.extern .func (.param .b32 r) answer();
.visible .entry call_answer(.param .u64 out)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    {
    .param .b32 r;
    call.uni (r), answer, ();
    ld.param.b32 %r1, [r];
    }
    st.global.u32 [%rd2], %r1;
    ret;
}
)";

const std::string kAnswer = R"(.version 8.0
.target sm_75
.address_size 64
.visible .func (.param .b32 r) answer()
{
    .reg .b32 %r<2>;
    mov.u32 %r1, 42;
    st.param.b32 [r], %r1;
    ret;
}
)";

CUresult add_ptx(CUlinkState link, const std::string& text, const char* name) {
    return cuLinkAddData(link, CU_JIT_INPUT_PTX, const_cast<char*>(text.c_str()), text.size() + 1,
                         name, 0, nullptr, nullptr);
}

CUresult add_bytes(CUlinkState link, CUjitInputType type, const std::string& bytes,
                   const char* name) {
    return cuLinkAddData(link, type, const_cast<char*>(bytes.data()), bytes.size(), name, 0,
                         nullptr, nullptr);
}

// A C caller may pass any int as the input type. In C++ an enum object holding a value outside its
// range is undefined behaviour, so the one call that passes such a value is made unchecked.
__attribute__((no_sanitize("enum"))) CUresult add_unknown_type(CUlinkState link) {
    CUjitInputType type{};
    const int unknown = 99;
    std::memcpy(&type, &unknown, sizeof type);
    char bytes[] = "x";
    return cuLinkAddData(link, type, bytes, sizeof bytes, "x", 0, nullptr, nullptr);
}

struct Logged {
    char error[1024] = {};
    char info[1024] = {};
    CUjit_option options[4] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                               CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void* values[4] = {error, reinterpret_cast<void*>(sizeof error), info,
                       reinterpret_cast<void*>(sizeof info)};
};

} // namespace

TEST_CASE("link: two PTX inputs become an emulator cubin that modules and libraries load") {
    init_with_context();
    Logged log;
    CUlinkState link = nullptr;
    REQUIRE(cuLinkCreate(4, log.options, log.values, &link) == CUDA_SUCCESS);
    REQUIRE(add_ptx(link, kCaller, "caller.ptx") == CUDA_SUCCESS);
    REQUIRE(add_ptx(link, kAnswer, "answer.ptx") == CUDA_SUCCESS);
    void* image = nullptr;
    size_t size = 0;
    REQUIRE(cuLinkComplete(link, &image, &size) == CUDA_SUCCESS);
    REQUIRE(image);
    const std::string elf(static_cast<const char*>(image), size);
    const cubin::Symbols symbols = cubin::read_symbols(elf);
    CHECK(symbols.sm_arch == 90);
    CHECK(symbols.kernels == std::vector<std::string>{"call_answer"});
    CHECK(cubin::embedded_ptx(elf).has_value());

    CUmodule module = nullptr;
    REQUIRE(cuModuleLoadData(&module, image) == CUDA_SUCCESS);
    CUlibrary library = nullptr;
    REQUIRE(cuLibraryLoadData(&library, image, nullptr, nullptr, 0, nullptr, nullptr, 0) ==
            CUDA_SUCCESS);
    CHECK(cuLinkDestroy(link) == CUDA_SUCCESS); // what was loaded stays
    CHECK(run_module_kernel(module, "call_answer") == 42);
    CUkernel kernel = nullptr;
    REQUIRE(cuLibraryGetKernel(&kernel, library, "call_answer") == CUDA_SUCCESS);
    CHECK(run_marking(reinterpret_cast<CUfunction>(kernel)) == 42);
    CHECK(cuModuleUnload(module) == CUDA_SUCCESS);
    CHECK(cuLibraryUnload(library) == CUDA_SUCCESS);
    CHECK(std::strlen(log.error) == 0);
}

TEST_CASE("link: fatbins, cubins and files are inputs too") {
    init_with_context();
    CUlinkState link = nullptr;
    REQUIRE(cuLinkCreate(0, nullptr, nullptr, &link) == CUDA_SUCCESS);
    const std::string fatbin = fb::write_container(
        {ptx_entry(75, kCaller), ptx_entry(100, marking_ptx("sm_100", {"call_answer"}, 0))});
    CHECK(add_bytes(link, CU_JIT_INPUT_FATBINARY, fatbin, "caller.fatbin") == CUDA_SUCCESS);
    const std::string path = "/tmp/cfrjit_link_test_" + std::to_string(getpid()) + ".cubin";
    std::ofstream(path, std::ios::binary) << cubin_of(kAnswer, 90);
    CHECK(cuLinkAddFile(link, CU_JIT_INPUT_CUBIN, path.c_str(), 0, nullptr, nullptr) ==
          CUDA_SUCCESS);
    std::remove(path.c_str());
    void* image = nullptr;
    REQUIRE(cuLinkComplete(link, &image, nullptr) == CUDA_SUCCESS);
    CUmodule module = nullptr;
    REQUIRE(cuModuleLoadData(&module, image) == CUDA_SUCCESS);
    CHECK(run_module_kernel(module, "call_answer") == 42);
    CHECK(cuModuleUnload(module) == CUDA_SUCCESS);
    CHECK(cuLinkDestroy(link) == CUDA_SUCCESS);
}

TEST_CASE("link: errors name the input and the symbol") {
    init_with_context();
    Logged log;
    CUlinkState link = nullptr;
    REQUIRE(cuLinkCreate(4, log.options, log.values, &link) == CUDA_SUCCESS);
    void* image = nullptr;

    SECTION("PTX that does not parse") {
        CHECK(add_ptx(link, ".version 8.0\n.target sm_75\n.address_size 64\nnonsense", "bad.ptx") ==
              CUDA_ERROR_INVALID_PTX);
        CHECK_THAT(std::string(log.error), Catch::Contains("bad.ptx:4:"));
    }
    SECTION("an unresolved reference") {
        REQUIRE(add_ptx(link, kCaller, "caller.ptx") == CUDA_SUCCESS);
        CHECK(cuLinkComplete(link, &image, nullptr) == CUDA_ERROR_INVALID_PTX);
        CHECK_THAT(std::string(log.error),
                   Catch::Contains("unresolved reference to 'answer' in caller.ptx"));
    }
    SECTION("a duplicate definition") {
        REQUIRE(add_ptx(link, kAnswer, "one.ptx") == CUDA_SUCCESS);
        REQUIRE(add_ptx(link, kAnswer, "two.ptx") == CUDA_SUCCESS);
        CHECK(cuLinkComplete(link, &image, nullptr) == CUDA_ERROR_INVALID_PTX);
        CHECK_THAT(std::string(log.error),
                   Catch::Contains("duplicate definition of 'answer' in one.ptx and two.ptx"));
    }
    SECTION("PTX for an architecture above the device") {
        CHECK(add_ptx(link, marking_ptx("sm_100", {"k"}, 1), "new.ptx") == CUDA_ERROR_INVALID_PTX);
        CHECK_THAT(std::string(log.error), Catch::Contains(".target"));
    }
    SECTION("input types the emulated driver does not link") {
        StderrCapture err;
        for (CUjitInputType type : {CU_JIT_INPUT_OBJECT, CU_JIT_INPUT_LIBRARY, CU_JIT_INPUT_NVVM})
            CHECK(add_bytes(link, type, "bytes", "input") == CUDA_ERROR_NOT_SUPPORTED);
        CHECK(add_unknown_type(link) == CUDA_ERROR_INVALID_VALUE);
        CHECK_THAT(err.text(), Catch::Contains("CU_JIT_INPUT_LIBRARY") &&
                                   Catch::Contains("PTX, fatbins and cubins"));
    }
    SECTION("a fatbin or cubin without code for this device, a missing file, nothing at all") {
        const std::string fatbin =
            fb::write_container({ptx_entry(100, marking_ptx("sm_100", {"k"}, 1))});
        CHECK(add_bytes(link, CU_JIT_INPUT_FATBINARY, fatbin, "new.fatbin") ==
              CUDA_ERROR_NO_BINARY_FOR_GPU);
        CHECK(add_bytes(link, CU_JIT_INPUT_CUBIN, cubin_of(kAnswer, 90, false), "sass.cubin") ==
              CUDA_ERROR_NO_BINARY_FOR_GPU);
        CHECK(add_bytes(link, CU_JIT_INPUT_CUBIN, "not an elf", "junk.cubin") ==
              CUDA_ERROR_INVALID_IMAGE);
        CHECK(cuLinkAddFile(link, CU_JIT_INPUT_PTX, "/nonexistent/x.ptx", 0, nullptr, nullptr) ==
              CUDA_ERROR_FILE_NOT_FOUND);
        CHECK(cuLinkComplete(link, &image, nullptr) == CUDA_ERROR_INVALID_VALUE);
    }
    CHECK(cuLinkDestroy(link) == CUDA_SUCCESS);
}

TEST_CASE("link: a link state is a handle with a lifetime") {
    init_with_context();
    CUlinkState link = nullptr;
    REQUIRE(cuLinkCreate(0, nullptr, nullptr, &link) == CUDA_SUCCESS);
    CHECK(cuLinkDestroy(link) == CUDA_SUCCESS);
    EnvGuard lenient("CFRJIT_EMULATOR_STRICT", std::nullopt);
    void* image = nullptr;
    CHECK(add_ptx(link, kAnswer, "late.ptx") == CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuLinkComplete(link, &image, nullptr) == CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuLinkDestroy(link) == CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuLinkCreate(0, nullptr, nullptr, nullptr) == CUDA_ERROR_INVALID_VALUE);
}
#endif
