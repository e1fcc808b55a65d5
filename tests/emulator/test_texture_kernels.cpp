// nvcc-compiled kernels using tex2D, tex1D, tex3D, tex1Dfetch, tex2Dgather, surf2Dread/Write and
// surf1Dread/Write (data/texture_kernels.cu, checked in as PTX) run on cfr::emu::Device with
// texture objects registered directly; results checked against host-computed values.
#include "helpers.hpp"

#include <cstring>

namespace {

using cfr::emu::Dim3;
using cfr::emu::ErrorCode;
using Desc = cfr::emu::Device::TextureDesc;
using emu_test::Fixture;
using emu_test::Params;

struct TexFixture : Fixture {
    TexFixture() : Fixture(emu_test::read_data("texture_kernels_sm75.ptx")) {}
    uint64_t texture(const Desc& d) {
        uint64_t h = 0;
        auto e = dev.create_texture(d, &h);
        INFO(e.message);
        REQUIRE(e.ok());
        return h;
    }
    void ok(const cfr::emu::Error& e) {
        INFO(e.message);
        REQUIRE(e.ok());
    }
};

} // namespace

TEST_CASE("texture kernels: tex2D<float4> on pitched memory returns every texel") {
    TexFixture f;
    const int w = 37, h = 5, pitch = 64 * 16;
    std::vector<float> host(size_t(pitch / 4) * h, -1.0f);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < 4; ++c)
                host[size_t(y) * pitch / 4 + x * 4 + c] = float(1000 * c + 100 * y + x);
    Desc d;
    d.data = f.upload(host);
    d.width = w;
    d.height = h;
    d.dims = 2;
    d.pitch_bytes = pitch;
    d.channels = 4;
    const uint64_t t = f.texture(d);
    cfr::emu::DevicePtr out = 0;
    f.ok(f.dev.malloc(size_t(w) * h * 16, &out));
    f.ok(f.run("tex2d_f4", Dim3{2, h, 1}, Dim3{32, 1, 1}, Params().add(t).add(out).add(w).add(h)));
    auto r = f.download<float>(out, size_t(w) * h * 4);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < 4; ++c)
                REQUIRE(r[(size_t(y) * w + x) * 4 + c] == float(1000 * c + 100 * y + x));
}

TEST_CASE("texture kernels: tex2D<float> with linear filtering, normalized wrap coordinates") {
    TexFixture f;
    Desc d;
    d.data = f.upload(std::vector<float>{1, 2, 3, 4}); // 2x2
    d.width = d.height = 2;
    d.dims = 2;
    d.linear_filter = true;
    d.normalized_coords = true;
    d.address[0] = d.address[1] = Desc::AddressMode::Wrap;
    const uint64_t t = f.texture(d);
    // Texel centres, the middle, and the middle shifted by one period.
    const std::vector<float> xy = {0.25f, 0.25f, 0.75f, 0.25f, 0.25f, 0.75f,
                                   0.5f,  0.5f,  1.5f,  -0.5f, 1.0f,  0.25f};
    const std::vector<float> expect = {1, 2, 3, 2.5f, 2.5f, 1.5f};
    auto in = f.upload(xy);
    cfr::emu::DevicePtr out = 0;
    f.ok(f.dev.malloc(expect.size() * 4, &out));
    f.ok(f.run("tex2d_at", Dim3{1, 1, 1}, Dim3{32, 1, 1},
               Params().add(t).add(out).add(in).add(int(expect.size()))));
    CHECK(f.download<float>(out, expect.size()) == expect);
}

TEST_CASE("texture kernels: tex2D<int4> reads 16-bit integers sign-extended") {
    TexFixture f;
    std::vector<int16_t> v = {-1, 2, -300, 32767, 5, -6, 7, -32768};
    Desc d;
    d.data = f.upload(v);
    d.width = 2;
    d.height = 1;
    d.dims = 2;
    d.channels = 4;
    d.channel_bytes = 2;
    d.channel = Desc::Channel::Signed;
    const uint64_t t = f.texture(d);
    auto in = f.upload(std::vector<float>{0.5f, 0.5f, 1.5f, 0.5f});
    cfr::emu::DevicePtr out = 0;
    f.ok(f.dev.malloc(32, &out));
    f.ok(
        f.run("tex2d_int4", Dim3{1, 1, 1}, Dim3{2, 1, 1}, Params().add(t).add(out).add(in).add(2)));
    CHECK(f.download<int32_t>(out, 8) ==
          std::vector<int32_t>{-1, 2, -300, 32767, 5, -6, 7, -32768});
}

TEST_CASE("texture kernels: tex1D<float> of 8-bit data read as normalized floats") {
    TexFixture f;
    Desc d;
    d.data = f.upload(std::vector<uint8_t>{0, 51, 255, 102});
    d.width = 4;
    d.channel_bytes = 1;
    d.channel = Desc::Channel::Unsigned;
    d.read_normalized = true;
    d.address[0] = Desc::AddressMode::Border;
    const uint64_t t = f.texture(d);
    auto in = f.upload(std::vector<float>{0.5f, 1.5f, 2.5f, 3.5f, 4.5f, -0.5f});
    cfr::emu::DevicePtr out = 0;
    f.ok(f.dev.malloc(24, &out));
    f.ok(f.run("tex1d_at", Dim3{1, 1, 1}, Dim3{6, 1, 1}, Params().add(t).add(out).add(in).add(6)));
    auto r = f.download<float>(out, 6);
    CHECK(r[0] == 0);
    CHECK(r[1] == Approx(0.2f));
    CHECK(r[2] == 1.0f);
    CHECK(r[3] == Approx(0.4f));
    CHECK(r[4] == 0); // border
    CHECK(r[5] == 0);
}

TEST_CASE("texture kernels: tex3D<float> point and linear") {
    TexFixture f;
    std::vector<float> v(4 * 3 * 2);
    for (size_t i = 0; i < v.size(); ++i)
        v[i] = float(i);
    Desc d;
    d.data = f.upload(v);
    d.width = 4;
    d.height = 3;
    d.depth = 2;
    d.dims = 3;
    const uint64_t t = f.texture(d);
    auto in = f.upload(std::vector<float>{3.5f, 2.5f, 1.5f, 0.5f, 1.5f, 0.5f, 2.0f, 1.0f, 1.0f});
    cfr::emu::DevicePtr out = 0;
    f.ok(f.dev.malloc(12, &out));
    f.ok(f.run("tex3d_at", Dim3{1, 1, 1}, Dim3{3, 1, 1}, Params().add(t).add(out).add(in).add(3)));
    CHECK(f.download<float>(out, 3) == std::vector<float>{23, 4, 18});
    Desc l = d;
    l.linear_filter = true;
    const uint64_t tl = f.texture(l);
    f.ok(f.run("tex3d_at", Dim3{1, 1, 1}, Dim3{3, 1, 1}, Params().add(tl).add(out).add(in).add(3)));
    // (2, 1, 1) is the centre of texels x 1..2, y 0..1, z 0..1: mean of 1,2,5,6,13,14,17,18.
    CHECK(f.download<float>(out, 3) == std::vector<float>{23, 4, 9.5f});
}

TEST_CASE("texture kernels: tex1Dfetch on linear memory reads 0 out of range") {
    TexFixture f;
    Desc d;
    d.data = f.upload(std::vector<int32_t>{-5, 6, 7, 8});
    d.width = 4;
    d.channel = Desc::Channel::Signed;
    d.linear_memory = true;
    const uint64_t t = f.texture(d);
    cfr::emu::DevicePtr out = 0;
    f.ok(f.dev.malloc(8 * 4, &out));
    f.ok(f.run("fetch_int", Dim3{1, 1, 1}, Dim3{8, 1, 1}, Params().add(t).add(out).add(8)));
    CHECK(f.download<int32_t>(out, 8) == std::vector<int32_t>{0, 0, -5, 6, 7, 8, 0, 0});

    Desc g;
    g.data = f.upload(std::vector<float>{0.5f, -1.25f});
    g.width = 2;
    g.linear_memory = true;
    const uint64_t tf = f.texture(g);
    f.ok(f.run("fetch_float", Dim3{1, 1, 1}, Dim3{3, 1, 1}, Params().add(tf).add(out).add(3)));
    CHECK(f.download<float>(out, 3) == std::vector<float>{0.5f, -1.25f, 0});
}

TEST_CASE("texture kernels: tex2Dgather of the second channel") {
    TexFixture f;
    std::vector<float> v;
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 3; ++x) {
            v.push_back(-1);
            v.push_back(float(10 * y + x));
        }
    Desc d;
    d.data = f.upload(v);
    d.width = d.height = 3;
    d.dims = 2;
    d.channels = 2;
    const uint64_t t = f.texture(d);
    auto in = f.upload(std::vector<float>{1.0f, 1.0f, 2.0f, 1.0f});
    cfr::emu::DevicePtr out = 0;
    f.ok(f.dev.malloc(32, &out));
    f.ok(f.run("gather_g", Dim3{1, 1, 1}, Dim3{2, 1, 1}, Params().add(t).add(out).add(in).add(2)));
    CHECK(f.download<float>(out, 8) == std::vector<float>{10, 11, 1, 0, 11, 12, 2, 1});
}

TEST_CASE("texture kernels: surf2Dread and surf2Dwrite") {
    TexFixture f;
    const int w = 40, h = 3;
    std::vector<float> v(size_t(w) * h);
    for (size_t i = 0; i < v.size(); ++i)
        v[i] = float(i) - 7;
    Desc d;
    d.data = f.upload(v);
    d.width = w;
    d.height = h;
    d.dims = 2;
    Desc o = d;
    o.data = f.upload(std::vector<float>(v.size(), 0));
    const uint64_t si = f.texture(d), so = f.texture(o);
    f.ok(
        f.run("surf_scale", Dim3{2, h, 1}, Dim3{32, 1, 1}, Params().add(si).add(so).add(w).add(h)));
    auto r = f.download<float>(o.data, v.size());
    for (size_t i = 0; i < v.size(); ++i)
        REQUIRE(r[i] == 2 * v[i]);
}

TEST_CASE("texture kernels: surface .zero and .clamp out-of-range modes, .trap faults") {
    TexFixture f;
    Desc d;
    d.data = f.upload(std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8});
    d.width = 2;
    d.channels = 4;
    d.channel_bytes = 1;
    d.channel = Desc::Channel::Unsigned;
    Desc o = d;
    o.data = f.upload(std::vector<uint8_t>(8, 0xee));
    const uint64_t si = f.texture(d), so = f.texture(o);
    // Lanes 0, 1 swizzle texels 0, 1; lanes 2, 3 read zeros and write them clamped to texel 1.
    f.ok(f.run("surf_swizzle", Dim3{1, 1, 1}, Dim3{4, 1, 1}, Params().add(si).add(so).add(4)));
    CHECK(f.download<uint8_t>(o.data, 8) == std::vector<uint8_t>{4, 3, 2, 1, 0, 0, 0, 0});
    f.ok(f.run("surf_swizzle", Dim3{1, 1, 1}, Dim3{2, 1, 1}, Params().add(si).add(so).add(2)));
    CHECK(f.download<uint8_t>(o.data, 8) == std::vector<uint8_t>{4, 3, 2, 1, 8, 7, 6, 5});

    Desc s;
    s.data = f.upload(std::vector<float>(4, 0));
    s.width = 4;
    const uint64_t ss = f.texture(s);
    f.ok(f.run("surf_trap", Dim3{1, 1, 1}, Dim3{1, 1, 1}, Params().add(ss).add(3)));
    CHECK(f.download<float>(s.data, 4) == std::vector<float>{0, 0, 0, 1});
    auto e = f.run("surf_trap", Dim3{1, 1, 1}, Dim3{1, 1, 1}, Params().add(ss).add(4));
    CHECK(e.code == ErrorCode::OutOfBounds);
    CHECK(e.message.find("surface access out of range") != std::string::npos);
}

TEST_CASE("texture kernels: unknown and destroyed handles stop the launch") {
    TexFixture f;
    Desc d;
    d.data = f.upload(std::vector<float>(4, 1));
    d.width = 4;
    const uint64_t t = f.texture(d);
    auto in = f.upload(std::vector<float>{0.5f});
    cfr::emu::DevicePtr out = 0;
    f.ok(f.dev.malloc(4, &out));
    f.ok(f.run("tex1d_at", Dim3{1, 1, 1}, Dim3{1, 1, 1}, Params().add(t).add(out).add(in).add(1)));
    f.ok(f.dev.destroy_texture(t));
    auto e =
        f.run("tex1d_at", Dim3{1, 1, 1}, Dim3{1, 1, 1}, Params().add(t).add(out).add(in).add(1));
    CHECK(e.code == ErrorCode::OutOfBounds);
    CHECK(e.message.find("unknown texture or surface object") != std::string::npos);
    Desc bad = d;
    bad.width = 5; // past the allocation
    uint64_t h = 0;
    CHECK(f.dev.create_texture(bad, &h).code == ErrorCode::InvalidAddress);
    bad = d;
    bad.channels = 3;
    CHECK(f.dev.create_texture(bad, &h).code == ErrorCode::InvalidValue);
}
