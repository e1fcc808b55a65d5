// Texture sampling on the host: texel decoding (float, half, 8/16/32-bit integers, optionally read
// as normalized floats), address modes (wrap, clamp, mirror, border), point and linear filtering,
// integer-coordinate fetches and the four-texel gather of tld4.
//
// Rules, after the CUDA programming guide's "Texture Fetching" appendix:
//  - With normalized coordinates a coordinate c addresses texel space c * extent; otherwise c is
//    already in texel space. Wrap and mirror apply only to normalized coordinates; unnormalized
//    ones use clamp instead.
//  - Point filtering reads texel floor(u). Linear filtering reads texels floor(u - 0.5) and the
//    next one, weighted by the fraction of u - 0.5 rounded to 8 fractional bits (the hardware's
//    9-bit fixed-point weight; its exact rounding may differ by one step of 1/256). Textures read
//    as integers are always point-filtered.
//  - Address modes apply to each texel index: wrap takes it modulo the extent, mirror reflects it
//    with period twice the extent, clamp limits it to the extent, border reads the border colour.
//  - A linear-memory texture (tex1Dfetch) reads 0 in every channel outside its extent.
//  - A texel has four 32-bit words: float bits for float data and normalized reads, sign- or
//    zero-extended integers otherwise. Absent channels read 0, except the fourth, which reads 1.
#pragma once

#include "emulator/device_types.hpp"

#include <array>
#include <cstdint>

namespace cfr::emu::tex {

using Desc = TextureDesc;
using Words = std::array<uint32_t, 4>;

// A texture's descriptor and a host view of the memory it reads.
struct Image {
    const Desc* desc = nullptr;
    const uint8_t* data = nullptr; // host address of desc->data
    uint64_t row_bytes = 0;        // the pitch (or width * element size)
};

uint32_t element_bytes(const Desc& d);
uint64_t row_bytes(const Desc& d);
// Bytes from the first texel to the end of the last one.
uint64_t extent_bytes(const Desc& d);
// The channels are returned as floats (float data, or integers read as normalized floats).
bool reads_float(const Desc& d);

// A texel index after the address mode: in [0, n), or -1 for the border.
int64_t address(Desc::AddressMode mode, int64_t i, int64_t n);
// The address mode actually used for dimension `dim` (wrap/mirror need normalized coordinates).
Desc::AddressMode effective_mode(const Desc& d, unsigned dim);
// The linear-filter weight of a fraction in [0, 1): rounded to a multiple of 1/256.
float filter_weight(float fraction);

// The texel at integer indices, after address modes (or 0 outside a linear-memory texture).
Words texel(const Image& im, int64_t x, int64_t y, int64_t z);
// tex with float coordinates (c[0..dims-1] used).
Words sample(const Image& im, const float c[3]);
// tex with integer coordinates: texel indices, no filtering.
Words fetch(const Image& im, const int32_t c[3]);
// tld4: channel `component` of the four texels bilinear filtering at (x, y) would read, in the
// order lower-left (i, j+1), lower-right (i+1, j+1), upper-right (i+1, j), upper-left (i, j).
Words gather(const Image& im, float x, float y, unsigned component);

} // namespace cfr::emu::tex
