// Texture and surface instructions on texture/surface objects (unified mode: the handle is a
// 64-bit register): tex.{1d,2d,3d}[.level].v4.{f32,s32,u32}.{f32,s32}, tld4.{r,g,b,a}.2d.v4,
// suld.b/sust.b.{1d,2d,3d}[.v2,.v4].{b8,b16,b32,b64}.{trap,clamp,zero} and txq/suq of width,
// height, depth, normalized_coords and filter_mode. Operand slots (decode_texture.cpp): the handle
// in addr.reg, coordinates in s[], destinations (or sust's data registers) in d[]; mode holds the
// geometry's number of coordinates, target the tld4 component (0..3 for r, g, b, a), the Clamp
// of a surface access or the Query.
#include "emulator/engine.hpp"
#include "emulator/select.hpp"
#include "emulator/texture.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace cfr::emu {

namespace {

using ptx::Modifier;
using ptx::Opcode;
using tex::Desc;

enum Clamp : uint8_t { Trap, ClampToEdge, Zero };
enum Query : uint8_t { Width, Height, Depth, NormalizedCoords, FilterMode };

// The texture a lane's handle names; the last one looked up is kept.
struct Bound {
    uint64_t handle = ~uint64_t(0);
    tex::Image image;
    uint8_t* bytes = nullptr;
};

const Bound& bind(Exec& x, const Inst& in, unsigned lane, Bound& b) {
    const uint64_t h = x.regs[size_t(in.addr.reg) * 32 + lane];
    if (h == b.handle) return b;
    const Desc* d = nullptr;
    if (x.L->textures)
        for (auto& [k, v] : *x.L->textures)
            if (k == h) {
                d = &v;
                break;
            }
    if (!d)
        fault(x, ErrorCode::OutOfBounds, "unknown texture or surface object " + std::to_string(h),
              int(lane));
    Allocation* a = x.L->memory->find(d->data, tex::extent_bytes(*d));
    if (!a)
        fault(x, ErrorCode::OutOfBounds,
              "memory of texture or surface object " + std::to_string(h) + " was freed", int(lane));
    b.handle = h;
    b.bytes = a->data() + (d->data - a->base);
    b.image = tex::Image{d, b.bytes, tex::row_bytes(*d)};
    return b;
}

void put(Exec& x, const Inst& in, unsigned lane, const tex::Words& w) {
    for (unsigned k = 0; k < in.nd && k < 4; ++k)
        wr(x, in.d[k], lane, w[k]);
}

template <bool IntCoords>
void tex_h(Exec& x, const Inst& in) {
    Bound b;
    for_lanes(x.mask, [&](unsigned l) {
        const tex::Image& im = bind(x, in, l, b).image;
        if constexpr (IntCoords) {
            int32_t c[3] = {0, 0, 0};
            for (unsigned k = 0; k < in.mode && k < in.ns; ++k)
                c[k] = int32_t(rd(x, in.s[k], l));
            put(x, in, l, tex::fetch(im, c));
        } else {
            float c[3] = {0, 0, 0};
            for (unsigned k = 0; k < in.mode && k < in.ns; ++k)
                c[k] = as<float>(rd(x, in.s[k], l));
            put(x, in, l, tex::sample(im, c));
        }
    });
}

void tld4_h(Exec& x, const Inst& in) {
    Bound b;
    for_lanes(x.mask, [&](unsigned l) {
        const tex::Image& im = bind(x, in, l, b).image;
        put(x, in, l,
            tex::gather(im, as<float>(rd(x, in.s[0], l)), as<float>(rd(x, in.s[1], l)), in.target));
    });
}

// The byte address of a surface access of `size` bytes, or nullptr for a dropped one (.zero).
uint8_t* surface_address(Exec& x, const Inst& in, unsigned l, const Bound& b, uint32_t size) {
    const Desc& d = *b.image.desc;
    int64_t c[3] = {0, 0, 0};
    for (unsigned k = 0; k < in.mode && k < in.ns; ++k)
        c[k] = int32_t(rd(x, in.s[k], l));
    const int64_t row = int64_t(d.width) * tex::element_bytes(d);
    const int64_t hi[3] = {row - int64_t(size), int64_t(d.height) - 1, int64_t(d.depth) - 1};
    bool inside = true;
    for (unsigned k = 0; k < 3; ++k)
        inside = inside && c[k] >= 0 && c[k] <= hi[k];
    if (!inside) {
        if (in.target == Zero) return nullptr;
        if (in.target == Trap || hi[0] < 0)
            fault(x, ErrorCode::OutOfBounds,
                  "surface access out of range at (" + std::to_string(c[0]) + ", " +
                      std::to_string(c[1]) + ", " + std::to_string(c[2]) + ")",
                  int(l));
        for (unsigned k = 0; k < 3; ++k)
            c[k] = std::clamp<int64_t>(c[k], 0, hi[k]);
        c[0] -= c[0] % size;
    }
    return b.bytes + uint64_t(c[2]) * d.height * b.image.row_bytes +
           uint64_t(c[1]) * b.image.row_bytes + uint64_t(c[0]);
}

void suld_h(Exec& x, const Inst& in) {
    Bound b;
    const unsigned n = ptx::type_bytes(in.t);
    for_lanes(x.mask, [&](unsigned l) {
        const uint8_t* p = surface_address(x, in, l, bind(x, in, l, b), n * in.vec);
        for (unsigned k = 0; k < in.nd; ++k) {
            uint64_t v = 0;
            if (p) std::memcpy(&v, p + k * n, n);
            wr(x, in.d[k], l, v);
        }
    });
}

void sust_h(Exec& x, const Inst& in) {
    Bound b;
    const unsigned n = ptx::type_bytes(in.t);
    bool changed = false;
    for_lanes(x.mask, [&](unsigned l) {
        uint8_t* p = surface_address(x, in, l, bind(x, in, l, b), n * in.vec);
        if (!p) return;
        for (unsigned k = 0; k < in.nd; ++k) {
            const uint64_t v = in.d[k] == kNone ? 0 : x.regs[size_t(in.d[k]) * 32 + l];
            if (std::memcmp(p + k * n, &v, n) != 0) {
                changed = true;
                std::memcpy(p + k * n, &v, n);
            }
        }
    });
    if (changed) x.L->write_epoch.fetch_add(1, std::memory_order_relaxed);
}

void query_h(Exec& x, const Inst& in) {
    Bound b;
    for_lanes(x.mask, [&](unsigned l) {
        const Desc& d = *bind(x, in, l, b).image.desc;
        uint32_t v = 0;
        switch (in.target) {
        case Width:
            v = d.width;
            break;
        case Height:
            v = d.height;
            break;
        case Depth:
            v = d.depth;
            break;
        case NormalizedCoords:
            v = d.normalized_coords;
            break;
        case FilterMode:
            v = d.linear_filter;
            break;
        }
        wr(x, in.d[0], l, v);
    });
}

// The number of coordinates of a 1d, 2d or 3d geometry; 0 for the others.
unsigned geometry(const DecodeRequest& r) {
    return r.has(Modifier::Geometry1d)   ? 1
           : r.has(Modifier::Geometry2d) ? 2
           : r.has(Modifier::Geometry3d) ? 3
                                         : 0;
}

Handler select_query(const DecodeRequest& r, Inst& in) {
    static constexpr std::pair<Modifier, Query> queries[] = {
        {Modifier::Width, Width},
        {Modifier::Height, Height},
        {Modifier::Depth, Depth},
        {Modifier::NormalizedCoords, NormalizedCoords},
        {Modifier::FilterMode, FilterMode}};
    for (auto [m, q] : queries)
        if (r.has(m) && in.nd == 1 && (r.op == Opcode::Txq || q <= Depth)) {
            in.target = q;
            return query_h;
        }
    return nullptr;
}

// tex and tld4 into four registers of .f32, .s32 or .u32; tld4 gathers one component of 2d.
Handler select_sample(const DecodeRequest& r, Inst& in, unsigned dims) {
    if (r.has(Modifier::Grad) || in.vec != 4 || in.nd != 4) return nullptr;
    if (in.t != Ty::F32 && in.t != Ty::S32 && in.t != Ty::U32) return nullptr;
    if (r.op == Opcode::Tld4) {
        static constexpr Modifier components[] = {Modifier::R, Modifier::G, Modifier::B,
                                                  Modifier::A};
        in.target = kNone;
        for (uint32_t k = 0; k < 4; ++k)
            if (r.has(components[k])) in.target = k;
        if (in.target == kNone || dims != 2 || in.t2 != Ty::F32 || in.ns < 2) return nullptr;
        return tld4_h;
    }
    if (in.ns < dims) return nullptr;
    if (in.t2 == Ty::F32) return tex_h<false>;
    if (in.t2 == Ty::S32) return tex_h<true>;
    return nullptr;
}

// suld.b and sust.b of .b8 to .b64 elements.
Handler select_surface(const DecodeRequest& r, Inst& in, unsigned dims) {
    if (!r.has(Modifier::B) || in.ns < dims || in.nd != in.vec) return nullptr;
    if (in.t != Ty::B8 && in.t != Ty::B16 && in.t != Ty::B32 && in.t != Ty::B64) return nullptr;
    in.target = r.has(Modifier::Clamp) ? ClampToEdge : r.has(Modifier::Zero) ? Zero : Trap;
    return r.op == Opcode::Suld ? suld_h : sust_h;
}

} // namespace

Handler select_texture(const DecodeRequest& r, Inst& in) {
    if (r.op == Opcode::Txq || r.op == Opcode::Suq) return select_query(r, in);
    const unsigned dims = geometry(r);
    if (dims == 0) return nullptr; // arrays, cube maps and multisample geometries
    in.mode = uint8_t(dims);
    switch (r.op) {
    case Opcode::Tex:
    case Opcode::Tld4:
        return select_sample(r, in, dims);
    case Opcode::Suld:
    case Opcode::Sust:
        return select_surface(r, in, dims);
    default:
        return nullptr;
    }
}

} // namespace cfr::emu
