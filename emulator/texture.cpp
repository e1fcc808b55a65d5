// Texture sampling math (see texture.hpp for the rules).
#include "emulator/texture.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

namespace cfr::emu::tex {

namespace {

using Mode = Desc::AddressMode;

float half_to_float(uint16_t h) {
    const uint32_t sign = uint32_t(h >> 15) << 31;
    const uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    if (exp == 0) {
        float v = std::ldexp(float(man), -24);
        return sign ? -v : v;
    }
    if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (man << 13));
    return std::bit_cast<float>(sign | ((exp + 112) << 23) | (man << 13));
}

uint32_t channel_word(const Desc& d, const uint8_t* p) {
    const uint32_t n = d.channel_bytes;
    uint32_t raw = 0;
    std::memcpy(&raw, p, n);
    if (d.channel == Desc::Channel::Float) {
        if (n == 2) return std::bit_cast<uint32_t>(half_to_float(uint16_t(raw)));
        return raw;
    }
    const bool sign = d.channel == Desc::Channel::Signed;
    int64_t v = raw;
    if (sign) v = int32_t(raw << (32 - 8 * n)) >> (32 - 8 * n);
    if (d.read_normalized && n < 4) {
        const float max = float((sign ? (1u << (8 * n - 1)) : (1u << (8 * n))) - 1);
        return std::bit_cast<uint32_t>(std::max(float(v) / max, -1.0f));
    }
    return uint32_t(v);
}

Words border_words(const Desc& d) {
    Words w{};
    for (unsigned c = 0; c < 4; ++c)
        w[c] =
            reads_float(d) ? std::bit_cast<uint32_t>(d.border[c]) : uint32_t(int32_t(d.border[c]));
    return w;
}

// A coordinate in texel space, kept in a range where floor() fits an int64.
double texel_space(const Desc& d, unsigned dim, float c) {
    const uint32_t n = dim == 0 ? d.width : dim == 1 ? d.height : d.depth;
    double u = d.normalized_coords ? double(c) * n : double(c);
    if (std::isnan(u)) return 0;
    return std::clamp(u, -1e15, 1e15);
}

std::array<float, 4> floats(const Words& w) {
    return {std::bit_cast<float>(w[0]), std::bit_cast<float>(w[1]), std::bit_cast<float>(w[2]),
            std::bit_cast<float>(w[3])};
}

} // namespace

uint32_t element_bytes(const Desc& d) {
    return d.channels * d.channel_bytes;
}

uint64_t row_bytes(const Desc& d) {
    return d.pitch_bytes ? d.pitch_bytes : uint64_t(d.width) * element_bytes(d);
}

uint64_t extent_bytes(const Desc& d) {
    return row_bytes(d) * (uint64_t(d.height) * d.depth - 1) + uint64_t(d.width) * element_bytes(d);
}

bool reads_float(const Desc& d) {
    return d.channel == Desc::Channel::Float || (d.read_normalized && d.channel_bytes < 4);
}

int64_t address(Mode mode, int64_t i, int64_t n) {
    switch (mode) {
    case Mode::Wrap:
        return ((i % n) + n) % n;
    case Mode::Mirror: {
        const int64_t m = ((i % (2 * n)) + 2 * n) % (2 * n);
        return m < n ? m : 2 * n - 1 - m;
    }
    case Mode::Clamp:
        return std::clamp<int64_t>(i, 0, n - 1);
    case Mode::Border:
        return i < 0 || i >= n ? -1 : i;
    }
    return -1;
}

Mode effective_mode(const Desc& d, unsigned dim) {
    const Mode m = d.address[dim];
    if (!d.normalized_coords && (m == Mode::Wrap || m == Mode::Mirror)) return Mode::Clamp;
    return m;
}

float filter_weight(float fraction) {
    return std::round(fraction * 256.0f) / 256.0f;
}

Words texel(const Image& im, int64_t x, int64_t y, int64_t z) {
    const Desc& d = *im.desc;
    const int64_t idx[3] = {x, y, z};
    const int64_t ext[3] = {d.width, d.height, d.depth};
    int64_t at[3] = {0, 0, 0};
    for (unsigned k = 0; k < d.dims; ++k) {
        if (d.linear_memory) {
            if (idx[k] < 0 || idx[k] >= ext[k]) return Words{};
            at[k] = idx[k];
            continue;
        }
        at[k] = address(effective_mode(d, k), idx[k], ext[k]);
        if (at[k] < 0) return border_words(d);
    }
    const uint8_t* p = im.data + uint64_t(at[2]) * d.height * im.row_bytes +
                       uint64_t(at[1]) * im.row_bytes + uint64_t(at[0]) * element_bytes(d);
    Words w{0, 0, 0, reads_float(d) ? std::bit_cast<uint32_t>(1.0f) : 1u};
    for (unsigned c = 0; c < d.channels; ++c)
        w[c] = channel_word(d, p + c * d.channel_bytes);
    return w;
}

Words sample(const Image& im, const float c[3]) {
    const Desc& d = *im.desc;
    const unsigned dims = d.dims;
    if (!d.linear_filter || !reads_float(d)) {
        int64_t i[3] = {0, 0, 0};
        for (unsigned k = 0; k < dims; ++k)
            i[k] = int64_t(std::floor(texel_space(d, k, c[k])));
        return texel(im, i[0], i[1], i[2]);
    }
    int64_t i0[3] = {0, 0, 0};
    float a[3] = {0, 0, 0};
    for (unsigned k = 0; k < dims; ++k) {
        const double u = texel_space(d, k, c[k]) - 0.5;
        const double f = std::floor(u);
        i0[k] = int64_t(f);
        a[k] = filter_weight(float(u - f));
    }
    std::array<float, 4> acc{};
    for (unsigned corner = 0; corner < (1u << dims); ++corner) {
        float weight = 1;
        int64_t i[3] = {i0[0], i0[1], i0[2]};
        for (unsigned k = 0; k < dims; ++k) {
            const bool hi = (corner >> k) & 1;
            i[k] += hi;
            weight *= hi ? a[k] : 1 - a[k];
        }
        if (weight == 0) continue;
        const auto t = floats(texel(im, i[0], i[1], i[2]));
        for (unsigned ch = 0; ch < 4; ++ch)
            acc[ch] += weight * t[ch];
    }
    Words w;
    for (unsigned ch = 0; ch < 4; ++ch)
        w[ch] = std::bit_cast<uint32_t>(acc[ch]);
    return w;
}

Words fetch(const Image& im, const int32_t c[3]) {
    return texel(im, c[0], im.desc->dims > 1 ? c[1] : 0, im.desc->dims > 2 ? c[2] : 0);
}

Words gather(const Image& im, float x, float y, unsigned component) {
    const Desc& d = *im.desc;
    const int64_t i = int64_t(std::floor(texel_space(d, 0, x) - 0.5));
    const int64_t j = int64_t(std::floor(texel_space(d, 1, y) - 0.5));
    const unsigned ch = component & 3;
    return {texel(im, i, j + 1, 0)[ch], texel(im, i + 1, j + 1, 0)[ch], texel(im, i + 1, j, 0)[ch],
            texel(im, i, j, 0)[ch]};
}

} // namespace cfr::emu::tex
