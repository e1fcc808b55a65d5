// Reaches the driver the way cudart does: dlopen("libcuda.so.1"), dlsym("cuGetProcAddress_v2"),
// then resolves every request cudart 13.0 makes (a requests file: seq name version flags export)
// and checks each against dlsym of the expected export; fetches the six export tables and runs
// the integrity check and context-local storage. Prints "gpa_probe: OK". Each function is called
// through a pointer of the type the emulated driver defines it with (clang's UBSan checks that).
#include <cuda.h>
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

using Gpa2 = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
using Gpa1 = CUresult (*)(const char*, void**, int, cuuint64_t);

static int failures = 0;
static void expect(bool ok, const std::string& what) {
    if (!ok) {
        ++failures;
        std::printf("FAIL: %s\n", what.c_str());
    }
}

int main(int argc, char** argv) {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) {
        std::printf("gpa_probe: dlopen failed: %s\n", dlerror());
        return 1;
    }
    auto gpa = reinterpret_cast<Gpa2>(dlsym(lib, "cuGetProcAddress_v2"));
    if (!gpa) {
        std::printf("gpa_probe: no cuGetProcAddress_v2\n");
        return 1;
    }
    void* fn = nullptr;
    CUdriverProcAddressQueryResult status{};
    expect(gpa("", &fn, 0, 0, &status) == CUDA_ERROR_NOT_FOUND && !fn,
           "empty-name probe is NOT_FOUND");
    expect(gpa("cuGetProcAddress", &fn, 11030, 0, &status) == CUDA_SUCCESS &&
               fn == dlsym(lib, "cuGetProcAddress"),
           "cuGetProcAddress@11030 is v1");
    auto gpa1 = reinterpret_cast<Gpa1>(fn);
    expect(gpa("cuGetProcAddress", &fn, 12000, 0, &status) == CUDA_SUCCESS &&
               fn == dlsym(lib, "cuGetProcAddress_v2"),
           "cuGetProcAddress@12000 is v2");
    expect(gpa("cuMemAlloc", &fn, 2000, 0, &status) == CUDA_SUCCESS &&
               fn == dlsym(lib, "cuMemAlloc"),
           "cuMemAlloc@2000 is v1");
    expect(gpa("cuLaunchKernel", &fn, 3000, 0, &status) == CUDA_ERROR_NOT_FOUND &&
               status == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT,
           "cuLaunchKernel@3000 is too old");
    expect(gpa1 &&
               gpa1("cuLaunchKernel", &fn, 7000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) ==
                   CUDA_SUCCESS &&
               fn == dlsym(lib, "cuLaunchKernel_ptsz"),
           "v1 cuLaunchKernel@7000/2 is _ptsz");

    if (argc > 1) {
        std::ifstream requests(argv[1]);
        std::string line;
        int checked = 0;
        while (std::getline(requests, line)) {
            if (line.empty() || line[0] == '#') continue;
            std::istringstream in(line);
            std::string seq, name, expected;
            int version = 0, flags = 0;
            in >> seq >> name >> version >> flags >> expected;
            if (name == "\"\"") continue;
            const CUresult r = gpa(name.c_str(), &fn, version, cuuint64_t(flags), &status);
            if (expected == "NOT") {
                expect(r == CUDA_ERROR_NOT_FOUND, name + " is not found");
            } else {
                void* want = dlsym(lib, expected.c_str());
                expect(r == CUDA_SUCCESS && want && fn == want,
                       name + "@" + std::to_string(version) + "/" + std::to_string(flags) + " -> " +
                           expected);
            }
            ++checked;
        }
        std::printf("checked %d requests\n", checked);
    }

    using GetExportTable = CUresult (*)(const void**, const CUuuid*);
    expect(gpa("cuGetExportTable", &fn, 3000, 0, &status) == CUDA_SUCCESS, "cuGetExportTable@3000");
    auto get_table = reinterpret_cast<GetExportTable>(fn);
    const unsigned char ids[6][16] = {{0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87,
                                       0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9},
                                      {0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2,
                                       0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66},
                                      {0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98,
                                       0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc},
                                      {0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3,
                                       0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93},
                                      {0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6,
                                       0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e},
                                      {0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34,
                                       0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2}};
    const void* tables[6] = {};
    for (int i = 0; i < 6; ++i) {
        CUuuid id;
        std::memcpy(id.bytes, ids[i], 16);
        expect(get_table(&tables[i], &id) == CUDA_SUCCESS && tables[i],
               "export table " + std::to_string(i));
    }
    CUuuid unknown{};
    const void* none = nullptr;
    expect(get_table(&none, &unknown) != CUDA_SUCCESS, "unknown export table is refused");

    using Init = CUresult (*)(unsigned);
    gpa("cuInit", &fn, 2000, 0, &status);
    expect(reinterpret_cast<Init>(fn)(0) == CUDA_SUCCESS, "cuInit");

    if (tables[5]) {
        auto integrity =
            reinterpret_cast<CUresult (*)(uint32_t, uint64_t, uint64_t*)>(
                static_cast<void* const*>(tables[5])[1]);
        uint64_t a[2] = {}, b[2] = {};
        expect(integrity(13002, 1700000000, a) == CUDA_SUCCESS && (a[0] | a[1]) != 0,
               "integrity hash");
        integrity(13002, 1700000001, b);
        expect(a[0] != b[0] || a[1] != b[1], "integrity hash depends on the time");
    }
    if (tables[0] && tables[3]) {
        auto primary = reinterpret_cast<CUresult (*)(CUcontext*, CUdevice)>(
            static_cast<void* const*>(tables[0])[2]);
        CUcontext ctx = nullptr;
        expect(primary(&ctx, 0) == CUDA_SUCCESS && ctx,
               "CUDART_INTERFACE[2] gives the primary context");
        auto const* cls = static_cast<void* const*>(tables[3]);
        using Dtor = void (*)(CUcontext, void*, void*);
        auto put = reinterpret_cast<CUresult (*)(CUcontext, void*, void*, Dtor)>(cls[0]);
        auto get = reinterpret_cast<CUresult (*)(void**, CUcontext, void*)>(cls[2]);
        int key = 0, value = 0;
        void* out = nullptr;
        expect(get(&out, ctx, &key) != CUDA_SUCCESS, "context-local storage miss");
        expect(put(ctx, &key, &value, nullptr) == CUDA_SUCCESS, "context-local storage put");
        expect(get(&out, ctx, &key) == CUDA_SUCCESS && out == &value, "context-local storage get");
    }
    std::printf(failures ? "gpa_probe: FAILED (%d)\n" : "gpa_probe: OK\n", failures);
    return failures != 0;
}
