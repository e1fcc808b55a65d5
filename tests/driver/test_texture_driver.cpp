// Texture and surface objects through the emulated driver: objects on linear, pitched 2D and
// array memory, arrays filled by cuMemcpy2D, cuMemcpy3D and cuMemcpyHtoA, and the nvcc-compiled
// kernels of tests/emulator/data/texture_kernels.cu launched with cuLaunchKernel.
#if __has_include(<cuda.h>)
#include "strict_guard.hpp"

#include <catch2/catch.hpp>
#include <cuda.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Session {
    CUmodule module = nullptr;
    Session() {
        REQUIRE(cuInit(0) == CUDA_SUCCESS);
        CUcontext ctx = nullptr;
        REQUIRE(cuDevicePrimaryCtxRetain(&ctx, 0) == CUDA_SUCCESS);
        REQUIRE(cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
        std::ifstream f(std::filesystem::path(CFRJIT_SOURCE_DIR) /
                        "tests/emulator/data/texture_kernels_sm75.ptx");
        std::stringstream ss;
        ss << f.rdbuf();
        const std::string ptx = ss.str();
        REQUIRE(cuModuleLoadData(&module, ptx.c_str()) == CUDA_SUCCESS);
    }
    ~Session() { cuModuleUnload(module); }
    void launch(const char* name, unsigned grid_x, unsigned grid_y, unsigned block,
                std::vector<void*> args) {
        CUfunction fn = nullptr;
        REQUIRE(cuModuleGetFunction(&fn, module, name) == CUDA_SUCCESS);
        REQUIRE(cuLaunchKernel(fn, grid_x, grid_y, 1, block, 1, 1, 0, nullptr, args.data(),
                               nullptr) == CUDA_SUCCESS);
        REQUIRE(cuCtxSynchronize() == CUDA_SUCCESS);
    }
};

template <class T>
CUdeviceptr upload(const std::vector<T>& v) {
    CUdeviceptr p = 0;
    REQUIRE(cuMemAlloc(&p, v.size() * sizeof(T)) == CUDA_SUCCESS);
    REQUIRE(cuMemcpyHtoD(p, v.data(), v.size() * sizeof(T)) == CUDA_SUCCESS);
    return p;
}

template <class T>
std::vector<T> download(CUdeviceptr p, size_t n) {
    std::vector<T> v(n);
    REQUIRE(cuMemcpyDtoH(v.data(), p, n * sizeof(T)) == CUDA_SUCCESS);
    return v;
}

CUDA_TEXTURE_DESC point_texture() {
    CUDA_TEXTURE_DESC t;
    std::memset(&t, 0, sizeof t);
    t.addressMode[0] = t.addressMode[1] = t.addressMode[2] = CU_TR_ADDRESS_MODE_CLAMP;
    t.filterMode = CU_TR_FILTER_MODE_POINT;
    return t;
}

} // namespace

TEST_CASE("driver textures: tex1Dfetch on linear memory, resource descriptor round trip") {
    Session s;
    CUdeviceptr data = upload(std::vector<int32_t>{-5, 6, 7, 8});
    CUDA_RESOURCE_DESC res;
    std::memset(&res, 0, sizeof res);
    res.resType = CU_RESOURCE_TYPE_LINEAR;
    res.res.linear.devPtr = data;
    res.res.linear.format = CU_AD_FORMAT_SIGNED_INT32;
    res.res.linear.numChannels = 1;
    res.res.linear.sizeInBytes = 16;
    CUDA_TEXTURE_DESC td = point_texture();
    td.flags = CU_TRSF_READ_AS_INTEGER;
    CUtexObject tex = 0;
    REQUIRE(cuTexObjectCreate(&tex, &res, &td, nullptr) == CUDA_SUCCESS);
    CHECK(tex != 0);
    CUDA_RESOURCE_DESC back;
    REQUIRE(cuTexObjectGetResourceDesc(&back, tex) == CUDA_SUCCESS);
    CHECK(back.resType == CU_RESOURCE_TYPE_LINEAR);
    CHECK(back.res.linear.devPtr == data);
    CHECK(back.res.linear.sizeInBytes == 16);

    CUdeviceptr out = 0;
    REQUIRE(cuMemAlloc(&out, 8 * 4) == CUDA_SUCCESS);
    int n = 8;
    s.launch("fetch_int", 1, 1, 32, {&tex, &out, &n});
    CHECK(download<int32_t>(out, 8) == std::vector<int32_t>{0, 0, -5, 6, 7, 8, 0, 0});
    CHECK(cuTexObjectDestroy(tex) == CUDA_SUCCESS);
    {
        StrictModeOff misuse;
        CHECK(cuTexObjectDestroy(tex) == CUDA_ERROR_INVALID_VALUE);
        CHECK(cuTexObjectGetResourceDesc(&back, tex) == CUDA_ERROR_INVALID_VALUE);
    }
    res.res.linear.numChannels = 3;
    CHECK(cuTexObjectCreate(&tex, &res, &td, nullptr) == CUDA_ERROR_INVALID_VALUE);
    cuMemFree(out);
    cuMemFree(data);
}

TEST_CASE("driver textures: tex2D<float4> on pitched memory filled by cuMemcpy2D") {
    Session s;
    const int w = 21, h = 4;
    std::vector<float> host(size_t(w) * h * 4);
    for (size_t i = 0; i < host.size(); ++i)
        host[i] = float(i) * 0.5f;
    CUdeviceptr data = 0;
    size_t pitch = 0;
    REQUIRE(cuMemAllocPitch(&data, &pitch, w * 16, h, 16) == CUDA_SUCCESS);
    CUDA_MEMCPY2D copy;
    std::memset(&copy, 0, sizeof copy);
    copy.srcMemoryType = CU_MEMORYTYPE_HOST;
    copy.srcHost = host.data();
    copy.srcPitch = w * 16;
    copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.dstDevice = data;
    copy.dstPitch = pitch;
    copy.WidthInBytes = w * 16;
    copy.Height = h;
    REQUIRE(cuMemcpy2D(&copy) == CUDA_SUCCESS);
    CUDA_RESOURCE_DESC res;
    std::memset(&res, 0, sizeof res);
    res.resType = CU_RESOURCE_TYPE_PITCH2D;
    res.res.pitch2D.devPtr = data;
    res.res.pitch2D.format = CU_AD_FORMAT_FLOAT;
    res.res.pitch2D.numChannels = 4;
    res.res.pitch2D.width = w;
    res.res.pitch2D.height = h;
    res.res.pitch2D.pitchInBytes = pitch;
    CUDA_TEXTURE_DESC td = point_texture();
    CUtexObject tex = 0;
    REQUIRE(cuTexObjectCreate(&tex, &res, &td, nullptr) == CUDA_SUCCESS);
    CUdeviceptr out = 0;
    REQUIRE(cuMemAlloc(&out, host.size() * 4) == CUDA_SUCCESS);
    int wi = w, hi = h;
    s.launch("tex2d_f4", 1, h, 32, {&tex, &out, &wi, &hi});
    CHECK(download<float>(out, host.size()) == host);
    cuTexObjectDestroy(tex);
    cuMemFree(out);
    cuMemFree(data);
}

TEST_CASE("driver textures: 2D array, linear filtering on normalized coordinates") {
    Session s;
    CUDA_ARRAY_DESCRIPTOR ad;
    ad.Width = 2;
    ad.Height = 2;
    ad.Format = CU_AD_FORMAT_UNSIGNED_INT8;
    ad.NumChannels = 1;
    CUarray array = nullptr;
    REQUIRE(cuArrayCreate(&array, &ad) == CUDA_SUCCESS);
    CUDA_ARRAY_DESCRIPTOR got;
    REQUIRE(cuArrayGetDescriptor(&got, array) == CUDA_SUCCESS);
    CHECK(got.Width == 2);
    CHECK(got.Height == 2);
    CHECK(got.Format == CU_AD_FORMAT_UNSIGNED_INT8);
    CHECK(got.NumChannels == 1);
    const uint8_t texels[4] = {0, 51, 102, 255};
    CUDA_MEMCPY2D copy;
    std::memset(&copy, 0, sizeof copy);
    copy.srcMemoryType = CU_MEMORYTYPE_HOST;
    copy.srcHost = texels;
    copy.srcPitch = 2;
    copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    copy.dstArray = array;
    copy.WidthInBytes = 2;
    copy.Height = 2;
    REQUIRE(cuMemcpy2D(&copy) == CUDA_SUCCESS);
    uint8_t back[4] = {};
    REQUIRE(cuMemcpyAtoH(back, array, 0, 4) == CUDA_SUCCESS);
    CHECK(std::memcmp(back, texels, 4) == 0);

    CUDA_RESOURCE_DESC res;
    std::memset(&res, 0, sizeof res);
    res.resType = CU_RESOURCE_TYPE_ARRAY;
    res.res.array.hArray = array;
    CUDA_TEXTURE_DESC td = point_texture();
    td.filterMode = CU_TR_FILTER_MODE_LINEAR;
    td.flags = CU_TRSF_NORMALIZED_COORDINATES;
    td.addressMode[0] = td.addressMode[1] = CU_TR_ADDRESS_MODE_BORDER;
    CUtexObject tex = 0;
    REQUIRE(cuTexObjectCreate(&tex, &res, &td, nullptr) == CUDA_SUCCESS);
    CUDA_TEXTURE_DESC td_back;
    REQUIRE(cuTexObjectGetTextureDesc(&td_back, tex) == CUDA_SUCCESS);
    CHECK(td_back.filterMode == CU_TR_FILTER_MODE_LINEAR);
    // Texel centres, the middle, and half a texel past the left edge (half border colour 0).
    const std::vector<float> xy = {0.25f, 0.25f, 0.75f, 0.75f, 0.5f, 0.5f, 0.0f, 0.75f};
    CUdeviceptr in = upload(xy), out = 0;
    REQUIRE(cuMemAlloc(&out, 16) == CUDA_SUCCESS);
    int n = 4;
    s.launch("tex2d_at", 1, 1, 32, {&tex, &out, &in, &n});
    auto r = download<float>(out, 4);
    CHECK(r[0] == 0);
    CHECK(r[1] == 1.0f);
    CHECK(r[2] == Approx((0 + 51 + 102 + 255) / 4.0 / 255));
    CHECK(r[3] == Approx(0.5 * 102 / 255));
    cuTexObjectDestroy(tex);
    CHECK(cuArrayDestroy(array) == CUDA_SUCCESS);
    {
        StrictModeOff misuse;
        CHECK(cuArrayDestroy(array) == CUDA_ERROR_INVALID_HANDLE);
    }
    cuMemFree(in);
    cuMemFree(out);
}

TEST_CASE("driver textures: 3D array filled by cuMemcpy3D") {
    Session s;
    CUDA_ARRAY3D_DESCRIPTOR ad;
    std::memset(&ad, 0, sizeof ad);
    ad.Width = 4;
    ad.Height = 3;
    ad.Depth = 2;
    ad.Format = CU_AD_FORMAT_FLOAT;
    ad.NumChannels = 1;
    CUarray array = nullptr;
    REQUIRE(cuArray3DCreate(&array, &ad) == CUDA_SUCCESS);
    CUDA_ARRAY3D_DESCRIPTOR got;
    REQUIRE(cuArray3DGetDescriptor(&got, array) == CUDA_SUCCESS);
    CHECK(got.Depth == 2);
    std::vector<float> v(24);
    for (size_t i = 0; i < v.size(); ++i)
        v[i] = float(i);
    CUDA_MEMCPY3D copy;
    std::memset(&copy, 0, sizeof copy);
    copy.srcMemoryType = CU_MEMORYTYPE_HOST;
    copy.srcHost = v.data();
    copy.srcPitch = 16;
    copy.srcHeight = 3;
    copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    copy.dstArray = array;
    copy.WidthInBytes = 16;
    copy.Height = 3;
    copy.Depth = 2;
    REQUIRE(cuMemcpy3D(&copy) == CUDA_SUCCESS);
    CUDA_RESOURCE_DESC res;
    std::memset(&res, 0, sizeof res);
    res.resType = CU_RESOURCE_TYPE_ARRAY;
    res.res.array.hArray = array;
    CUDA_TEXTURE_DESC td = point_texture();
    CUtexObject tex = 0;
    REQUIRE(cuTexObjectCreate(&tex, &res, &td, nullptr) == CUDA_SUCCESS);
    CUdeviceptr in = upload(std::vector<float>{3.5f, 2.5f, 1.5f, 0.5f, 1.5f, 0.5f}), out = 0;
    REQUIRE(cuMemAlloc(&out, 8) == CUDA_SUCCESS);
    int n = 2;
    s.launch("tex3d_at", 1, 1, 32, {&tex, &out, &in, &n});
    CHECK(download<float>(out, 2) == std::vector<float>{23, 4});
    // Back to the host, one slice shifted by a row.
    std::vector<float> slice(8, -1);
    copy = CUDA_MEMCPY3D{};
    copy.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    copy.srcArray = array;
    copy.srcY = 1;
    copy.srcZ = 1;
    copy.dstMemoryType = CU_MEMORYTYPE_HOST;
    copy.dstHost = slice.data();
    copy.dstPitch = 16;
    copy.WidthInBytes = 16;
    copy.Height = 2;
    copy.Depth = 1;
    REQUIRE(cuMemcpy3D(&copy) == CUDA_SUCCESS);
    CHECK(slice == std::vector<float>{16, 17, 18, 19, 20, 21, 22, 23});
    copy.Height = 3; // past the array
    CHECK(cuMemcpy3D(&copy) == CUDA_ERROR_INVALID_VALUE);
    cuTexObjectDestroy(tex);
    cuArrayDestroy(array);
    cuMemFree(in);
    cuMemFree(out);
}

TEST_CASE("driver surfaces: surf2Dread/surf2Dwrite and surf1D with boundary modes") {
    Session s;
    const int w = 33, h = 2;
    CUDA_ARRAY3D_DESCRIPTOR ad;
    std::memset(&ad, 0, sizeof ad);
    ad.Width = w;
    ad.Height = h;
    ad.Format = CU_AD_FORMAT_FLOAT;
    ad.NumChannels = 1;
    ad.Flags = CUDA_ARRAY3D_SURFACE_LDST;
    CUarray in_array = nullptr, out_array = nullptr;
    REQUIRE(cuArray3DCreate(&in_array, &ad) == CUDA_SUCCESS);
    REQUIRE(cuArray3DCreate(&out_array, &ad) == CUDA_SUCCESS);
    std::vector<float> v(size_t(w) * h);
    for (size_t i = 0; i < v.size(); ++i)
        v[i] = float(i) - 3;
    REQUIRE(cuMemcpyHtoA(in_array, 0, v.data(), v.size() * 4) == CUDA_SUCCESS);
    CUDA_RESOURCE_DESC res;
    std::memset(&res, 0, sizeof res);
    res.resType = CU_RESOURCE_TYPE_ARRAY;
    res.res.array.hArray = in_array;
    CUsurfObject si = 0, so = 0;
    REQUIRE(cuSurfObjectCreate(&si, &res) == CUDA_SUCCESS);
    res.res.array.hArray = out_array;
    REQUIRE(cuSurfObjectCreate(&so, &res) == CUDA_SUCCESS);
    CUDA_RESOURCE_DESC back;
    REQUIRE(cuSurfObjectGetResourceDesc(&back, so) == CUDA_SUCCESS);
    CHECK(back.res.array.hArray == out_array);
    int wi = w, hi = h;
    s.launch("surf_scale", 2, h, 32, {&si, &so, &wi, &hi});
    std::vector<float> r(v.size());
    CUDA_MEMCPY2D copy;
    std::memset(&copy, 0, sizeof copy);
    copy.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    copy.srcArray = out_array;
    copy.dstMemoryType = CU_MEMORYTYPE_HOST;
    copy.dstHost = r.data();
    copy.dstPitch = w * 4;
    copy.WidthInBytes = w * 4;
    copy.Height = h;
    REQUIRE(cuMemcpy2D(&copy) == CUDA_SUCCESS);
    for (size_t i = 0; i < v.size(); ++i)
        REQUIRE(r[i] == 2 * v[i]);

    // uchar4 texels: lanes past the end read zeros and write clamped to the last texel.
    CUDA_ARRAY_DESCRIPTOR bd;
    bd.Width = 2;
    bd.Height = 0;
    bd.Format = CU_AD_FORMAT_UNSIGNED_INT8;
    bd.NumChannels = 4;
    CUarray bytes_in = nullptr, bytes_out = nullptr;
    REQUIRE(cuArrayCreate(&bytes_in, &bd) == CUDA_SUCCESS);
    REQUIRE(cuArrayCreate(&bytes_out, &bd) == CUDA_SUCCESS);
    const uint8_t texels[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    REQUIRE(cuMemcpyHtoA(bytes_in, 0, texels, 8) == CUDA_SUCCESS);
    CUsurfObject bi = 0, bo = 0;
    res.res.array.hArray = bytes_in;
    REQUIRE(cuSurfObjectCreate(&bi, &res) == CUDA_SUCCESS);
    res.res.array.hArray = bytes_out;
    REQUIRE(cuSurfObjectCreate(&bo, &res) == CUDA_SUCCESS);
    int n = 2;
    s.launch("surf_swizzle", 1, 1, 32, {&bi, &bo, &n});
    uint8_t got[8] = {};
    REQUIRE(cuMemcpyAtoH(got, bytes_out, 0, 8) == CUDA_SUCCESS);
    CHECK(std::vector<uint8_t>(got, got + 8) == std::vector<uint8_t>{4, 3, 2, 1, 8, 7, 6, 5});

    // Surfaces need an array.
    CUDA_RESOURCE_DESC lin;
    std::memset(&lin, 0, sizeof lin);
    lin.resType = CU_RESOURCE_TYPE_LINEAR;
    CUsurfObject bad = 0;
    CHECK(cuSurfObjectCreate(&bad, &lin) == CUDA_ERROR_INVALID_VALUE);
    for (CUsurfObject o : {si, so, bi, bo})
        CHECK(cuSurfObjectDestroy(o) == CUDA_SUCCESS);
    for (CUarray a : {in_array, out_array, bytes_in, bytes_out})
        CHECK(cuArrayDestroy(a) == CUDA_SUCCESS);
}
#endif
