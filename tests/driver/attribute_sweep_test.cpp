// Every device and function attribute that the toolkit's cuda.h declares, read from the header at
// test time: a new attribute fails these tests until it has an expected value. Device attributes
// against tests/driver/data/device_attributes.tsv (the emulated device's value, an H100 SXM5's,
// and why they differ); function attributes against values worked out by hand for four kernels.
#if __has_include(<cuda.h>) && defined(CFRJIT_CUDA_HEADER)
#include "driver_fixtures.hpp"
#include "raw_attribute_calls.hpp"

#include <climits>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace fixtures;

namespace {

struct Enumerator {
    std::string name;
    long value = 0;
};

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in.good());
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string without_comments(const std::string& text) {
    std::string out;
    for (size_t i = 0; i < text.size();) {
        if (text.compare(i, 2, "/*") == 0) {
            const size_t end = text.find("*/", i + 2);
            i = end == std::string::npos ? text.size() : end + 2;
            out += ' ';
        } else if (text.compare(i, 2, "//") == 0) {
            i = std::min(text.find('\n', i), text.size());
        } else {
            out += text[i++];
        }
    }
    return out;
}

std::string trim(const std::string& s) {
    const size_t first = s.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return "";
    return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

const std::string& cuda_header() {
    static const std::string text = without_comments(read_text(CFRJIT_CUDA_HEADER));
    return text;
}

long value_of(const std::string& expression, const std::vector<Enumerator>& before) {
    for (const Enumerator& e : before)
        if (e.name == expression) return e.value;
    return std::stol(expression, nullptr, 0);
}

// The enumerators of `typedef enum <tag> { ... }` in cuda.h, in order, with their values, and the
// value of the closing `<prefix>MAX`.
struct HeaderEnum {
    std::vector<Enumerator> enumerators;
    long max = 0;
};

HeaderEnum header_enum(const std::string& tag, const std::string& prefix) {
    const std::string& header = cuda_header();
    const size_t start = header.find("typedef enum " + tag + " {");
    REQUIRE(start != std::string::npos);
    const size_t open = header.find('{', start) + 1;
    std::stringstream items(header.substr(open, header.find('}', open) - open));
    std::vector<Enumerator> out;
    long next = 0;
    for (std::string item; std::getline(items, item, ',');) {
        const size_t equals = item.find('=');
        const std::string name = trim(item.substr(0, equals));
        if (name.empty()) continue;
        const long value =
            equals == std::string::npos ? next : value_of(trim(item.substr(equals + 1)), out);
        out.push_back({name, value});
        next = value + 1;
    }
    REQUIRE(!out.empty());
    REQUIRE(out.back().name == prefix + "MAX");
    const long max = out.back().value;
    out.pop_back();
    return {out, max};
}

long header_value(const std::vector<Enumerator>& enumerators, const std::string& name) {
    for (const Enumerator& e : enumerators)
        if (e.name == name) return e.value;
    FAIL("not in cuda.h: " << name);
    return -1;
}

template <class Enum>
Enum enum_from_bits(long value) {
    static_assert(sizeof(Enum) == sizeof(int));
    const int bits = int(value);
    Enum e;
    std::memcpy(&e, &bits, sizeof e);
    return e;
}

// ---- device attributes --------------------------------------------------------------------------

struct DeviceRow {
    std::string name;
    int emulated = 0;
    std::string h100; // "-": depends on the machine, or not known
    std::string note;
};

std::vector<std::string> split_tabs(const std::string& line) {
    std::vector<std::string> fields;
    std::stringstream in(line);
    for (std::string field; std::getline(in, field, '\t');)
        fields.push_back(field);
    if (!line.empty() && line.back() == '\t') fields.emplace_back();
    return fields;
}

std::vector<DeviceRow> device_table() {
    std::stringstream in(read_text(CFRJIT_SOURCE_DIR "/tests/driver/data/device_attributes.tsv"));
    std::vector<DeviceRow> rows;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        const std::vector<std::string> f = split_tabs(line);
        INFO(line);
        REQUIRE(f.size() == 4);
        rows.push_back({f[0], std::stoi(f[1]), f[2], f[3]});
    }
    return rows;
}

HeaderEnum device_enum() {
    return header_enum("CUdevice_attribute_enum", "CU_DEVICE_ATTRIBUTE_");
}

int device_attribute(long attribute) {
    int v = INT_MIN;
    REQUIRE(cuDeviceGetAttribute(&v, enum_from_bits<CUdevice_attribute>(attribute), 0) ==
            CUDA_SUCCESS);
    return v;
}

int device_attribute(CUdevice_attribute attribute) {
    return device_attribute(long(attribute));
}

// cuDeviceGetProperties and cuDeviceComputeCapability are deprecated, and still exported.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
CUdevprop device_properties() {
    CUdevprop p;
    std::memset(&p, 0xff, sizeof p);
    REQUIRE(cuDeviceGetProperties(&p, 0) == CUDA_SUCCESS);
    return p;
}

std::pair<int, int> compute_capability() {
    int major = 0, minor = 0;
    REQUIRE(cuDeviceComputeCapability(&major, &minor, 0) == CUDA_SUCCESS);
    return {major, minor};
}
#pragma GCC diagnostic pop

} // namespace

TEST_CASE("device attributes: the table has one row for each value cuda.h declares") {
    const std::vector<Enumerator> header = device_enum().enumerators;
    std::map<long, std::vector<std::string>> rows_of_value;
    for (const DeviceRow& row : device_table())
        rows_of_value[header_value(header, row.name)].push_back(row.name);
    for (const Enumerator& e : header) {
        INFO(e.name << " = " << e.value << " (a deprecated alias shares its value's row)");
        CHECK(rows_of_value[e.value].size() == 1);
    }
}

TEST_CASE("device attributes: a value that differs from an H100 SXM5's says why") {
    for (const DeviceRow& row : device_table()) {
        INFO(row.name);
        if (row.h100 == "-" || std::stol(row.h100) != row.emulated) CHECK(!row.note.empty());
    }
}

TEST_CASE("device attributes: cuDeviceGetAttribute returns the table's value for each") {
    REQUIRE(cuInit(0) == CUDA_SUCCESS);
    const std::vector<Enumerator> header = device_enum().enumerators;
    for (const DeviceRow& row : device_table()) {
        INFO(row.name);
        CHECK(device_attribute(header_value(header, row.name)) == row.emulated);
    }
}

TEST_CASE("device attributes: values outside the enumeration, a null pointer and another device "
          "are refused") {
    REQUIRE(cuInit(0) == CUDA_SUCCESS);
    const long max = device_enum().max;
    CHECK(max == CU_DEVICE_ATTRIBUTE_MAX);
    for (long bad : {0L, -1L, long(INT_MIN), max, max + 1, 100000L}) {
        INFO(bad);
        int v = 12345;
        CHECK(raw_calls::device_attribute(&v, int(bad), 0) == CUDA_ERROR_INVALID_VALUE);
        CHECK(v == 12345);
    }
    int v = 0;
    CHECK(cuDeviceGetAttribute(nullptr, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0) ==
          CUDA_ERROR_INVALID_VALUE);
    CHECK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 1) == CUDA_ERROR_INVALID_DEVICE);
}

TEST_CASE("device attributes: cuDeviceGetProperties and the other device queries agree") {
    REQUIRE(cuInit(0) == CUDA_SUCCESS);
    const CUdevprop p = device_properties();
    CHECK(p.maxThreadsPerBlock == device_attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
    CHECK(p.maxThreadsDim[0] == device_attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X));
    CHECK(p.maxThreadsDim[1] == device_attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y));
    CHECK(p.maxThreadsDim[2] == device_attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z));
    CHECK(p.maxGridSize[0] == device_attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X));
    CHECK(p.maxGridSize[1] == device_attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y));
    CHECK(p.maxGridSize[2] == device_attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z));
    CHECK(p.sharedMemPerBlock == device_attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
    CHECK(p.totalConstantMemory == device_attribute(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY));
    CHECK(p.SIMDWidth == device_attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE));
    CHECK(p.memPitch == device_attribute(CU_DEVICE_ATTRIBUTE_MAX_PITCH));
    CHECK(p.regsPerBlock == device_attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK));
    CHECK(p.clockRate == device_attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE));
    CHECK(p.textureAlign == device_attribute(CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT));

    const auto [major, minor] = compute_capability();
    CHECK(major == device_attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR));
    CHECK(minor == device_attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));

    char bus_id[32] = {};
    REQUIRE(cuDeviceGetPCIBusId(bus_id, sizeof bus_id, 0) == CUDA_SUCCESS);
    char expected[32];
    std::snprintf(expected, sizeof expected, "%04x:%02x:%02x.0",
                  device_attribute(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID),
                  device_attribute(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID),
                  device_attribute(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID));
    CHECK(std::string(bus_id) == expected);

    size_t total = 0;
    REQUIRE(cuDeviceTotalMem(&total, 0) == CUDA_SUCCESS);
    CHECK(total == size_t(4) << 30);
}

// ---- function attributes ------------------------------------------------------------------------

namespace {

// heavy: 4096 bytes of static shared memory, 64 bytes of local memory, 128 registers (one warp
// takes 4096 of a sub-partition's 16384: 16 warps, 512 threads). bounded: .maxntid 256.
// clustered: __cluster_dims__(2, 1, 1). explicit_only: launched in clusters of a shape the launch
// gives.
const char* kAttributePtx = R"(
.version 7.8
.target sm_90
.address_size 64
.visible .entry heavy()
{
    .shared .align 4 .b8 buf[4096];
    .local .align 4 .b8 scratch[64];
    .reg .b32 %r<128>;
    mov.u32 %r1, 1;
    st.shared.u32 [buf], %r1;
    st.local.u32 [scratch], %r1;
    ret;
}
.visible .entry bounded()
.maxntid 256, 1, 1
{
    .reg .b32 %r<8>;
    ret;
}
.visible .entry clustered()
.explicitcluster
.reqnctapercluster 2, 1, 1
{
    ret;
}
.visible .entry explicit_only()
.explicitcluster
{
    ret;
}
)";

constexpr const char* kKernels[] = {"heavy", "bounded", "clustered", "explicit_only"};

struct FunctionRow {
    const char* name;
    int expected[4]; // in the order of kKernels
    bool settable;
};

// By hand from the device model (docs/driver.md): 48 KiB of shared memory per block by default,
// 227 KiB opted in; PTX and binary version 90 for sm_90 PTX; the carveout -1 until set.
const FunctionRow kFunctionAttributes[] = {
    {"CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK", {512, 256, 1024, 1024}, false},
    {"CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES", {4096, 0, 0, 0}, false},
    {"CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES", {0, 0, 0, 0}, false},
    {"CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES", {64, 0, 0, 0}, false},
    {"CU_FUNC_ATTRIBUTE_NUM_REGS", {128, 8, 0, 0}, false},
    {"CU_FUNC_ATTRIBUTE_PTX_VERSION", {90, 90, 90, 90}, false},
    {"CU_FUNC_ATTRIBUTE_BINARY_VERSION", {90, 90, 90, 90}, false},
    {"CU_FUNC_ATTRIBUTE_CACHE_MODE_CA", {0, 0, 0, 0}, false},
    {"CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES", {49152 - 4096, 49152, 49152, 49152}, true},
    {"CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT", {-1, -1, -1, -1}, true},
    {"CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET", {0, 0, 0, 1}, false},
    {"CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH", {0, 0, 2, 0}, true},
    {"CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT", {0, 0, 1, 0}, true},
    {"CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH", {0, 0, 1, 0}, true},
    {"CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED", {0, 0, 0, 0}, true},
    {"CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE", {0, 0, 0, 0}, true},
};

HeaderEnum function_enum() {
    return header_enum("CUfunction_attribute_enum", "CU_FUNC_ATTRIBUTE_");
}

CUfunction_attribute function_attribute_named(const std::string& name) {
    return enum_from_bits<CUfunction_attribute>(header_value(function_enum().enumerators, name));
}

struct AttributeModule {
    CUmodule module = nullptr;
    CUfunction functions[4] = {};
    AttributeModule() {
        REQUIRE(cuModuleLoadData(&module, kAttributePtx) == CUDA_SUCCESS);
        for (int i = 0; i < 4; ++i)
            REQUIRE(cuModuleGetFunction(&functions[i], module, kKernels[i]) == CUDA_SUCCESS);
    }
    ~AttributeModule() { cuModuleUnload(module); }
    CUfunction operator[](const std::string& name) const {
        for (int i = 0; i < 4; ++i)
            if (name == kKernels[i]) return functions[i];
        return nullptr;
    }
};

int get(CUfunction f, CUfunction_attribute a) {
    int v = INT_MIN;
    REQUIRE(cuFuncGetAttribute(&v, a, f) == CUDA_SUCCESS);
    return v;
}

} // namespace

TEST_CASE("function attributes: every CU_FUNC_ATTRIBUTE_ of cuda.h has expected values") {
    std::set<std::string> expected;
    for (const FunctionRow& row : kFunctionAttributes)
        expected.insert(row.name);
    std::set<std::string> declared;
    for (const Enumerator& e : function_enum().enumerators)
        declared.insert(e.name);
    CHECK(declared == expected);
}

TEST_CASE("function attributes: each kernel's value of each attribute, as a CUfunction and as a "
          "CUkernel") {
    primary();
    AttributeModule m;
    CUlibrary library = nullptr;
    REQUIRE(cuLibraryLoadData(&library, kAttributePtx, nullptr, nullptr, 0, nullptr, nullptr, 0) ==
            CUDA_SUCCESS);
    for (const FunctionRow& row : kFunctionAttributes) {
        const CUfunction_attribute a = function_attribute_named(row.name);
        for (int i = 0; i < 4; ++i) {
            INFO(row.name << " of " << kKernels[i]);
            CHECK(get(m.functions[i], a) == row.expected[i]);
            CUkernel kernel = nullptr;
            REQUIRE(cuLibraryGetKernel(&kernel, library, kKernels[i]) == CUDA_SUCCESS);
            int v = INT_MIN;
            CHECK(cuKernelGetAttribute(&v, a, kernel, 0) == CUDA_SUCCESS);
            CHECK(v == row.expected[i]);
        }
    }
    CHECK(cuLibraryUnload(library) == CUDA_SUCCESS);
}

TEST_CASE("function attributes: out-of-range attributes are refused") {
    primary();
    AttributeModule m;
    const long max = function_enum().max;
    CHECK(max == CU_FUNC_ATTRIBUTE_MAX);
    for (long bad : {-1L, max, max + 1, long(INT_MIN)}) {
        INFO(bad);
        int v = 12345;
        CHECK(raw_calls::function_attribute(&v, int(bad), m["heavy"]) == CUDA_ERROR_INVALID_VALUE);
        CHECK(v == 12345);
        CHECK(raw_calls::set_function_attribute(m["heavy"], int(bad), 0) ==
              CUDA_ERROR_INVALID_VALUE);
    }
    CHECK(cuFuncGetAttribute(nullptr, CU_FUNC_ATTRIBUTE_NUM_REGS, m["heavy"]) ==
          CUDA_ERROR_INVALID_VALUE);
}

TEST_CASE("function attributes: cuFuncSetAttribute refuses the read-only attributes") {
    primary();
    AttributeModule m;
    for (const FunctionRow& row : kFunctionAttributes) {
        if (row.settable) continue;
        INFO(row.name);
        const CUfunction_attribute a = function_attribute_named(row.name);
        CHECK(cuFuncSetAttribute(m["heavy"], a, row.expected[0]) == CUDA_ERROR_INVALID_VALUE);
        CHECK(get(m["heavy"], a) == row.expected[0]);
    }
}

TEST_CASE("function attributes: the settable attributes and their limits") {
    primary();
    AttributeModule m;
    const CUfunction heavy = m["heavy"];
    const auto dynamic = CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
    CHECK(cuFuncSetAttribute(heavy, dynamic, 232448 - 4096 + 1) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuFuncSetAttribute(heavy, dynamic, -1) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuFuncSetAttribute(heavy, dynamic, 232448 - 4096) == CUDA_SUCCESS);
    CHECK(get(heavy, dynamic) == 232448 - 4096);

    const auto carveout = CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT;
    CHECK(cuFuncSetAttribute(heavy, carveout, -2) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuFuncSetAttribute(heavy, carveout, 101) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuFuncSetAttribute(heavy, carveout, 100) == CUDA_SUCCESS);
    CHECK(get(heavy, carveout) == 100);

    const auto policy = CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
    CHECK(cuFuncSetAttribute(heavy, policy, 3) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuFuncSetAttribute(heavy, policy, -1) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuFuncSetAttribute(heavy, policy, CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING) ==
          CUDA_SUCCESS);
    CHECK(get(heavy, policy) == CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING);

    const auto non_portable = CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED;
    CHECK(cuFuncSetAttribute(heavy, non_portable, 1) == CUDA_SUCCESS);
    CHECK(get(heavy, non_portable) == 1);
    CHECK(cuFuncSetAttribute(heavy, non_portable, 0) == CUDA_SUCCESS);
    CHECK(get(heavy, non_portable) == 0);
}

TEST_CASE("function attributes: a compiled cluster shape cannot be set, another kernel's can") {
    primary();
    AttributeModule m;
    const CUfunction_attribute shape[] = {CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH,
                                          CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT,
                                          CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH};
    for (CUfunction_attribute a : shape)
        CHECK(cuFuncSetAttribute(m["clustered"], a, 4) == CUDA_ERROR_NOT_PERMITTED);
    CHECK(get(m["clustered"], CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH) == 2);

    const CUfunction f = m["explicit_only"];
    CHECK(cuLaunchKernel(f, 8, 2, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr) ==
          CUDA_ERROR_INVALID_CLUSTER_SIZE);
    CHECK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, -1) ==
          CUDA_ERROR_INVALID_VALUE);
    const int dims[] = {4, 2, 1};
    for (int i = 0; i < 3; ++i)
        CHECK(cuFuncSetAttribute(f, shape[i], dims[i]) == CUDA_SUCCESS);
    for (int i = 0; i < 3; ++i)
        CHECK(get(f, shape[i]) == dims[i]);
    // A launch without a cluster attribute now runs in clusters of 4 x 2 x 1 blocks.
    CHECK(cuLaunchKernel(f, 8, 2, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr) == CUDA_SUCCESS);
    CHECK(cuLaunchKernel(f, 6, 2, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr) ==
          CUDA_ERROR_INVALID_CLUSTER_SIZE);
    CHECK(cuCtxSynchronize() == CUDA_SUCCESS);

    CUlibrary library = nullptr;
    REQUIRE(cuLibraryLoadData(&library, kAttributePtx, nullptr, nullptr, 0, nullptr, nullptr, 0) ==
            CUDA_SUCCESS);
    CUkernel kernel = nullptr;
    REQUIRE(cuLibraryGetKernel(&kernel, library, "clustered") == CUDA_SUCCESS);
    CHECK(cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, 4, kernel, 0) ==
          CUDA_ERROR_NOT_PERMITTED);
    CHECK(cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_NUM_REGS, 4, kernel, 0) ==
          CUDA_ERROR_INVALID_VALUE);
    CHECK(cuLibraryUnload(library) == CUDA_SUCCESS);
}

#endif
