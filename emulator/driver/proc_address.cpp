// cuGetProcAddress (v1 and _v2): resolves (name, cudaVersion, flags) to the export implementing
// that ABI: the newest ABI of the name not newer than cudaVersion, in its per-thread-default-stream
// form when flags ask for it and one exists.
#include "emulator/driver/driver.hpp"

#include <cstring>
#include <map>
#include <string_view>
#include <vector>

namespace cfr::driver {
struct ExportAddress {
    const char* name;
    void* address;
};
extern const ExportAddress kExportAddresses[];
extern const size_t kExportCount;
} // namespace cfr::driver

using namespace cfr::driver;

namespace {

struct Abi {
    int version;
    bool per_thread;
    const char* symbol;
};

struct ProcRow {
    const char* name;
    Abi abi;
};

constexpr ProcRow kRows[] = {
#define CFRJIT_PROC(name, version, per_thread, symbol) {#name, {version, per_thread != 0, #symbol}},
#include "emulator/driver/entry_points.inc"
#undef CFRJIT_PROC
};

struct Tables {
    std::map<std::string_view, void*> addresses;
    std::map<std::string_view, std::vector<Abi>> abis;
};

const Tables& tables() {
    static const Tables* t = [] {
        auto* t = new Tables;
        for (size_t i = 0; i < kExportCount; ++i)
            t->addresses.emplace(kExportAddresses[i].name, kExportAddresses[i].address);
        for (const ProcRow& row : kRows)
            t->abis[row.name].push_back(row.abi);
        return t;
    }();
    return *t;
}

CUresult resolve(const char* symbol, void** pfn, int version, cuuint64_t flags,
                 CUdriverProcAddressQueryResult* status) {
    auto set_status = [&](CUdriverProcAddressQueryResult s) {
        if (status) *status = s;
    };
    if (!symbol || !pfn) return CUDA_ERROR_INVALID_VALUE;
    *pfn = nullptr;
    const Tables& t = tables();
    auto it = t.abis.find(symbol);
    if (it == t.abis.end()) {
        set_status(CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
        return CUDA_ERROR_NOT_FOUND;
    }
    const bool per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
    const Abi* best = nullptr;
    for (int pass = per_thread ? 0 : 1; pass < 2 && !best; ++pass)
        for (const Abi& abi : it->second)
            if (abi.per_thread == (pass == 0) && abi.version <= version &&
                (!best || abi.version > best->version))
                best = &abi;
    if (!best) {
        set_status(CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
        return CUDA_ERROR_NOT_FOUND;
    }
    auto address = t.addresses.find(best->symbol);
    if (address == t.addresses.end()) {
        set_status(CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
        return CUDA_ERROR_NOT_FOUND;
    }
    *pfn = address->second;
    set_status(CU_GET_PROC_ADDRESS_SUCCESS);
    return CUDA_SUCCESS;
}

} // namespace

CFR_EXPORT CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cudaVersion,
                                        cuuint64_t flags,
                                        CUdriverProcAddressQueryResult* symbolStatus) {
    CFR_API();
    return resolve(symbol, pfn, cudaVersion, flags, symbolStatus);
}

CFR_EXPORT CUresult cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion,
                                     cuuint64_t flags) {
    CFR_API();
    return resolve(symbol, pfn, cudaVersion, flags, nullptr);
}
