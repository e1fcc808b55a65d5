// Texture sampling math against values worked out on the host from the CUDA programming guide's
// texture-fetching rules: point and linear filtering, each address mode, normalized coordinates,
// integer and half formats, linear-memory fetches and the tld4 gather order.
#include "emulator/texture.hpp"

#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

namespace {

using cfr::emu::tex::Desc;
using Mode = Desc::AddressMode;
namespace tex = cfr::emu::tex;

// A single-channel float texture held on the host.
struct HostTexture {
    Desc desc;
    std::vector<uint8_t> bytes;
    tex::Image image() const { return {&desc, bytes.data(), tex::row_bytes(desc)}; }
};

HostTexture float_texture(uint32_t w, uint32_t h, uint32_t d, const std::vector<float>& v) {
    HostTexture t;
    t.desc.width = w;
    t.desc.height = h;
    t.desc.depth = d;
    t.desc.dims = d > 1 ? 3 : h > 1 ? 2 : 1;
    t.bytes.resize(v.size() * 4);
    std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
    return t;
}

float f(uint32_t w) {
    return std::bit_cast<float>(w);
}

float sample1(const HostTexture& t, float x, float y = 0, float z = 0) {
    const float c[3] = {x, y, z};
    return f(tex::sample(t.image(), c)[0]);
}

// The programming guide's point sampling of a 1D texture of n texels: the coordinate is mapped
// into [0, 1) (normalized wrap and mirror) or clamped, then the texel floor(x * n) is read.
float reference_point(const std::vector<float>& v, float x, Mode mode, bool normalized) {
    const float n = float(v.size());
    if (!normalized && (mode == Mode::Wrap || mode == Mode::Mirror)) mode = Mode::Clamp;
    if (normalized && mode == Mode::Wrap) x = x - std::floor(x);
    if (normalized && mode == Mode::Mirror)
        x = int64_t(std::floor(x)) % 2 == 0 ? x - std::floor(x) : 1 - (x - std::floor(x));
    const float u = normalized ? x * n : x;
    if (mode == Mode::Border && (u < 0 || u >= n)) return 0;
    const int64_t i = std::clamp<int64_t>(int64_t(std::floor(u)), 0, int64_t(n) - 1);
    return v[size_t(i)];
}

} // namespace

TEST_CASE("texture: point filtering reads texel floor(u), clamped or bordered") {
    // 4x3 texture, texel (x, y) = 10 * y + x.
    std::vector<float> v;
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 4; ++x)
            v.push_back(float(10 * y + x));
    auto t = float_texture(4, 3, 1, v);
    CHECK(sample1(t, 0.5f, 0.5f) == 0);
    CHECK(sample1(t, 3.99f, 2.01f) == 23);
    CHECK(sample1(t, 2.0f, 1.0f) == 12);
    CHECK(sample1(t, -5.0f, 1.5f) == 10); // clamp
    CHECK(sample1(t, 9.0f, 7.0f) == 23);
    t.desc.address[0] = t.desc.address[1] = Mode::Border;
    t.desc.border[0] = -1;
    CHECK(sample1(t, -0.01f, 1.5f) == -1);
    CHECK(sample1(t, 1.5f, 3.0f) == -1);
    CHECK(sample1(t, 1.5f, 2.99f) == 21);
    // Wrap and mirror need normalized coordinates; unnormalized ones clamp.
    t.desc.address[0] = t.desc.address[1] = Mode::Wrap;
    CHECK(sample1(t, 5.5f, 0.5f) == 3);
}

TEST_CASE("texture: address modes on normalized coordinates") {
    const std::vector<float> v = {1, 2, 3, 4};
    auto t = float_texture(4, 1, 1, v);
    t.desc.normalized_coords = true;
    struct Case {
        Mode mode;
        float x, expect;
    };
    const Case cases[] = {
        {Mode::Wrap, 1.1f, 1},    {Mode::Wrap, -0.1f, 4},   {Mode::Wrap, 2.6f, 3},
        {Mode::Mirror, 1.1f, 4},  {Mode::Mirror, -0.1f, 1}, {Mode::Mirror, 1.6f, 2},
        {Mode::Mirror, 2.1f, 1},  {Mode::Clamp, -3.0f, 1},  {Mode::Clamp, 1.0f, 4},
        {Mode::Border, -0.1f, 0}, {Mode::Border, 1.0f, 0},  {Mode::Border, 0.99f, 4},
    };
    for (auto& c : cases) {
        t.desc.address[0] = c.mode;
        INFO("mode " << int(c.mode) << " x " << c.x);
        CHECK(sample1(t, c.x) == c.expect);
    }
    // Texel-interior coordinates over several periods against the guide's formulation.
    for (Mode m : {Mode::Wrap, Mode::Mirror, Mode::Clamp, Mode::Border})
        for (bool normalized : {true, false})
            for (int k = -13; k < 17; ++k)
                for (float frac : {0.3f, 0.7f}) {
                    t.desc.address[0] = m;
                    t.desc.normalized_coords = normalized;
                    const float x = normalized ? (k + frac) / 4 : k + frac;
                    INFO("mode " << int(m) << " normalized " << normalized << " x " << x);
                    CHECK(sample1(t, x) == reference_point(v, x, m, normalized));
                }
}

TEST_CASE("texture: linear filtering with 8-bit fractional weights") {
    auto t = float_texture(4, 1, 1, {8, 10, 20, 30});
    t.desc.linear_filter = true;
    CHECK(sample1(t, 1.0f) == 9);  // halfway between texels 0 and 1
    CHECK(sample1(t, 1.5f) == 10); // texel centre
    CHECK(sample1(t, 0.25f) == 8); // clamp: texel -1 reads texel 0
    CHECK(sample1(t, 10.0f) == 30);
    // 0.7 is rounded to 179/256.
    CHECK(sample1(t, 2.2f) == Approx(10 + 10 * 179.0 / 256).margin(1e-5));
    CHECK(tex::filter_weight(0.7f) == 179.0f / 256);
    t.desc.address[0] = Mode::Border;
    CHECK(sample1(t, 0.25f) == Approx(0.75 * 8));
    CHECK(sample1(t, 4.0f) == Approx(0.5 * 30));
    // Normalized wrap: between the last and the first texel.
    t.desc.address[0] = Mode::Wrap;
    t.desc.normalized_coords = true;
    CHECK(sample1(t, 1.0f) == Approx((30 + 8) / 2.0));
    t.desc.address[0] = Mode::Mirror;
    CHECK(sample1(t, 1.0f) == 30);

    // Bilinear: (1, 1) is the middle of the 2x2 texels; weights multiply per dimension.
    auto q = float_texture(2, 2, 1, {1, 2, 3, 4});
    q.desc.linear_filter = true;
    CHECK(sample1(q, 1.0f, 1.0f) == 2.5f);
    CHECK(sample1(q, 0.75f, 1.25f) ==
          Approx(0.75 * 0.25 * 1 + 0.25 * 0.25 * 2 + 0.75 * 0.75 * 3 + 0.25 * 0.75 * 4));
    // Trilinear: the middle of a 2x2x2 block is the mean.
    auto c = float_texture(2, 2, 2, {0, 1, 2, 3, 4, 5, 6, 7});
    c.desc.linear_filter = true;
    CHECK(sample1(c, 1.0f, 1.0f, 1.0f) == 3.5f);
    c.desc.linear_filter = false;
    CHECK(sample1(c, 1.5f, 0.5f, 1.5f) == 5);
}

TEST_CASE("texture: integer formats read as normalized floats or as integers") {
    struct Case {
        Desc::Channel channel;
        uint32_t bytes;
        int64_t raw;
        float normalized;
    };
    const Case cases[] = {
        {Desc::Channel::Unsigned, 1, 255, 1.0f},
        {Desc::Channel::Unsigned, 1, 51, 0.2f},
        {Desc::Channel::Signed, 1, -128, -1.0f},
        {Desc::Channel::Signed, 1, -127, -1.0f},
        {Desc::Channel::Signed, 1, 127, 1.0f},
        {Desc::Channel::Signed, 1, 64, 64 / 127.0f},
        {Desc::Channel::Unsigned, 2, 65535, 1.0f},
        {Desc::Channel::Unsigned, 2, 13107, 0.2f},
        {Desc::Channel::Signed, 2, -32768, -1.0f},
        {Desc::Channel::Signed, 2, 16384, 16384 / 32767.0f},
    };
    for (auto& c : cases) {
        HostTexture t;
        t.desc.width = 1;
        t.desc.channel = c.channel;
        t.desc.channel_bytes = c.bytes;
        t.bytes.resize(4);
        std::memcpy(t.bytes.data(), &c.raw, c.bytes);
        INFO("raw " << c.raw << " bytes " << c.bytes);
        t.desc.read_normalized = true;
        CHECK(f(tex::texel(t.image(), 0, 0, 0)[0]) == Approx(c.normalized).epsilon(1e-6));
        t.desc.read_normalized = false;
        CHECK(int32_t(tex::texel(t.image(), 0, 0, 0)[0]) == c.raw);
    }
    // 32-bit integers are always integers; linear filtering of integer reads is point sampling.
    HostTexture t;
    t.desc.width = 2;
    t.desc.channel = Desc::Channel::Signed;
    t.desc.read_normalized = true;
    t.desc.linear_filter = true;
    const int32_t raw[2] = {-7, 100};
    t.bytes.resize(8);
    std::memcpy(t.bytes.data(), raw, 8);
    const float c[3] = {1.0f, 0, 0};
    CHECK(int32_t(tex::sample(t.image(), c)[0]) == 100);
    CHECK_FALSE(tex::reads_float(t.desc));
}

TEST_CASE("texture: half channels, absent channels and linear-memory fetches") {
    HostTexture t;
    t.desc.width = 2;
    t.desc.channels = 2;
    t.desc.channel_bytes = 2;
    const uint16_t halves[4] = {0x3c00, 0xc000, 0x3800, 0x0001}; // 1, -2, 0.5, 2^-24
    t.bytes.resize(8);
    std::memcpy(t.bytes.data(), halves, 8);
    auto w = tex::texel(t.image(), 0, 0, 0);
    CHECK(f(w[0]) == 1.0f);
    CHECK(f(w[1]) == -2.0f);
    CHECK(f(w[2]) == 0.0f);
    CHECK(f(w[3]) == 1.0f);
    w = tex::texel(t.image(), 1, 0, 0);
    CHECK(f(w[0]) == 0.5f);
    CHECK(f(w[1]) == std::ldexp(1.0f, -24));

    HostTexture l;
    l.desc.width = 3;
    l.desc.channel = Desc::Channel::Unsigned;
    l.desc.linear_memory = true;
    const uint32_t v[3] = {5, 6, 7};
    l.bytes.resize(12);
    std::memcpy(l.bytes.data(), v, 12);
    for (int32_t i : {-1, 3, 1000}) {
        const int32_t c[3] = {i, 0, 0};
        CHECK(tex::fetch(l.image(), c) == tex::Words{0, 0, 0, 0});
    }
    const int32_t c[3] = {2, 0, 0};
    CHECK(tex::fetch(l.image(), c) == tex::Words{7, 0, 0, 1});
}

TEST_CASE("texture: tld4 gathers counter-clockwise from the lower left") {
    // 4x4 texture of two channels; channel 1 of texel (x, y) is 100 + 10 * y + x.
    HostTexture t;
    t.desc.width = t.desc.height = 4;
    t.desc.dims = 2;
    t.desc.channels = 2;
    std::vector<float> v;
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 4; ++x) {
            v.push_back(0);
            v.push_back(float(100 + 10 * y + x));
        }
    t.bytes.resize(v.size() * 4);
    std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
    auto w = tex::gather(t.image(), 2.0f, 2.0f, 1);
    CHECK(f(w[0]) == 121);
    CHECK(f(w[1]) == 122);
    CHECK(f(w[2]) == 112);
    CHECK(f(w[3]) == 111);
    w = tex::gather(t.image(), 0.2f, 0.2f, 1); // clamps at the corner
    CHECK(f(w[0]) == 100);
    CHECK(f(w[1]) == 100);
    CHECK(f(w[2]) == 100);
    CHECK(f(w[3]) == 100);
    w = tex::gather(t.image(), 1.0f, 1.0f, 0);
    CHECK(f(w[0]) == 0);
}

TEST_CASE("texture: index address modes") {
    CHECK(tex::address(Mode::Wrap, -1, 4) == 3);
    CHECK(tex::address(Mode::Wrap, 9, 4) == 1);
    CHECK(tex::address(Mode::Mirror, 4, 4) == 3);
    CHECK(tex::address(Mode::Mirror, -1, 4) == 0);
    CHECK(tex::address(Mode::Mirror, 9, 4) == 1);
    CHECK(tex::address(Mode::Mirror, -5, 4) == 3);
    CHECK(tex::address(Mode::Clamp, -5, 4) == 0);
    CHECK(tex::address(Mode::Border, 4, 4) == -1);
}
