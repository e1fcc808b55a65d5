// Texture and surface objects over linear memory, pitched 2D memory and CUDA arrays. Each object
// is an emulator texture (emu::Device::create_texture); its handle is the CUtexObject or
// CUsurfObject value. Integer formats of 8 and 16 bits read as normalized floats unless
// CU_TRSF_READ_AS_INTEGER is set. Surfaces need an array resource. Mipmapped arrays, resource
// views, layered geometries and sRGB conversion are not supported. An object belongs to the
// context current at its creation.
#include "emulator/driver/arrays.hpp"
#include "emulator/driver/handles.hpp"
#include "emulator/driver/work.hpp"

using namespace cfr::driver;
using Desc = cfr::emu::Device::TextureDesc;

namespace {

struct TextureObject : Object {
    ~TextureObject() override { state().device->destroy_texture(handle); }
    CUDA_RESOURCE_DESC resource{};
    CUDA_TEXTURE_DESC texture{};
};

Kind kind_of(bool surface) {
    return surface ? Kind::SurfObject : Kind::TexObject;
}

bool set_format(Desc& d, CUarray_format format, unsigned channels) {
    d.channel_bytes = uint32_t(format_bytes(format));
    d.channels = channels;
    switch (format) {
    case CU_AD_FORMAT_SIGNED_INT8:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT32:
        d.channel = Desc::Channel::Signed;
        break;
    case CU_AD_FORMAT_UNSIGNED_INT8:
    case CU_AD_FORMAT_UNSIGNED_INT16:
    case CU_AD_FORMAT_UNSIGNED_INT32:
        d.channel = Desc::Channel::Unsigned;
        break;
    default:
        d.channel = Desc::Channel::Float;
        break;
    }
    return d.channel_bytes != 0 && (channels == 1 || channels == 2 || channels == 4);
}

CUresult describe(const CUDA_RESOURCE_DESC& r, Desc& d) {
    switch (r.resType) {
    case CU_RESOURCE_TYPE_LINEAR: {
        const auto& l = r.res.linear;
        if (CUresult e = check_not_freed(l.devPtr)) return e;
        if (!set_format(d, l.format, l.numChannels)) return CUDA_ERROR_INVALID_VALUE;
        d.data = l.devPtr;
        d.width = uint32_t(l.sizeInBytes / (d.channels * d.channel_bytes));
        d.linear_memory = true;
        return CUDA_SUCCESS;
    }
    case CU_RESOURCE_TYPE_PITCH2D: {
        const auto& p = r.res.pitch2D;
        if (CUresult e = check_not_freed(p.devPtr)) return e;
        if (!set_format(d, p.format, p.numChannels)) return CUDA_ERROR_INVALID_VALUE;
        d.data = p.devPtr;
        d.width = uint32_t(p.width);
        d.height = uint32_t(p.height);
        d.pitch_bytes = p.pitchInBytes;
        d.dims = 2;
        return CUDA_SUCCESS;
    }
    case CU_RESOURCE_TYPE_ARRAY: {
        Array* a = nullptr;
        if (CUresult e = lookup_array(r.res.array.hArray, &a)) return e;
        if (!set_format(d, a->desc.Format, a->desc.NumChannels)) return CUDA_ERROR_INVALID_VALUE;
        d.data = a->data;
        d.width = uint32_t(a->desc.Width);
        d.height = uint32_t(a->desc.Height ? a->desc.Height : 1);
        d.depth = uint32_t(a->desc.Depth ? a->desc.Depth : 1);
        d.pitch_bytes = a->pitch;
        d.dims = a->desc.Depth ? 3 : a->desc.Height ? 2 : 1;
        return CUDA_SUCCESS;
    }
    case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY:
        return not_supported("texture objects on mipmapped arrays");
    }
    return CUDA_ERROR_INVALID_VALUE;
}

Desc::AddressMode address_mode(CUaddress_mode m) {
    switch (m) {
    case CU_TR_ADDRESS_MODE_WRAP:
        return Desc::AddressMode::Wrap;
    case CU_TR_ADDRESS_MODE_MIRROR:
        return Desc::AddressMode::Mirror;
    case CU_TR_ADDRESS_MODE_BORDER:
        return Desc::AddressMode::Border;
    default:
        return Desc::AddressMode::Clamp;
    }
}

CUresult create(unsigned long long* handle, const CUDA_RESOURCE_DESC* res,
                const CUDA_TEXTURE_DESC* tex, bool surface, const char* api) {
    if (CUresult r = check_init()) return r;
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    if (!handle || !res || (!surface && !tex)) return CUDA_ERROR_INVALID_VALUE;
    if (surface && res->resType != CU_RESOURCE_TYPE_ARRAY) return CUDA_ERROR_INVALID_VALUE;
    Desc d;
    if (CUresult r = describe(*res, d)) return r;
    if (tex) {
        for (unsigned k = 0; k < 3; ++k)
            d.address[k] = address_mode(tex->addressMode[k]);
        d.linear_filter = tex->filterMode == CU_TR_FILTER_MODE_LINEAR;
        d.normalized_coords = tex->flags & CU_TRSF_NORMALIZED_COORDINATES;
        d.read_normalized = !(tex->flags & CU_TRSF_READ_AS_INTEGER);
        for (unsigned k = 0; k < 4; ++k)
            d.border[k] = tex->borderColor[k];
    }
    uint64_t h = 0;
    if (CUresult r = report(state().device->create_texture(d, &h), api)) return r;
    auto o = std::make_unique<TextureObject>();
    o->resource = *res;
    if (tex) o->texture = *tex;
    registry().add(kind_of(surface), {Space::Texture, h}, 0, std::move(o),
                   {{Space::Handle, ctx->handle}});
    *handle = h;
    return CUDA_SUCCESS;
}

// The live texture (or surface) object behind a handle, else a reported misuse.
CUresult find(unsigned long long handle, bool surface, Record** out) {
    Record* r = registry().find({Space::Texture, handle});
    *out = r;
    if (!r || !r->alive() || r->kind != kind_of(surface))
        return bad_handle(CUDA_ERROR_INVALID_VALUE, kind_of(surface), handle, r);
    return CUDA_SUCCESS;
}

const TextureObject& object_of(const Record* r) {
    return *static_cast<const TextureObject*>(r->object.get());
}

CUresult destroy(unsigned long long handle, bool surface) {
    if (CUresult r = check_init()) return r;
    Record* r = nullptr;
    if (CUresult e = find(handle, surface, &r)) return e;
    registry().destroy(*r);
    return CUDA_SUCCESS;
}

} // namespace

CFR_EXPORT CUresult cuTexObjectCreate(CUtexObject* pTexObject, const CUDA_RESOURCE_DESC* pResDesc,
                                      const CUDA_TEXTURE_DESC* pTexDesc,
                                      const CUDA_RESOURCE_VIEW_DESC* pResViewDesc) {
    CFR_API();
    if (pResViewDesc) return not_supported("texture objects with a resource view");
    return create(pTexObject, pResDesc, pTexDesc, false, "cuTexObjectCreate");
}

CFR_EXPORT CUresult cuTexObjectDestroy(CUtexObject texObject) {
    CFR_API();
    return destroy(texObject, false);
}

CFR_EXPORT CUresult cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC* pResDesc,
                                               CUtexObject texObject) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    Record* o = nullptr;
    if (CUresult r = find(texObject, false, &o)) return r;
    if (!pResDesc) return CUDA_ERROR_INVALID_VALUE;
    *pResDesc = object_of(o).resource;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC* pTexDesc, CUtexObject texObject) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    Record* o = nullptr;
    if (CUresult r = find(texObject, false, &o)) return r;
    if (!pTexDesc) return CUDA_ERROR_INVALID_VALUE;
    *pTexDesc = object_of(o).texture;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuSurfObjectCreate(CUsurfObject* pSurfObject,
                                       const CUDA_RESOURCE_DESC* pResDesc) {
    CFR_API();
    return create(pSurfObject, pResDesc, nullptr, true, "cuSurfObjectCreate");
}

CFR_EXPORT CUresult cuSurfObjectDestroy(CUsurfObject surfObject) {
    CFR_API();
    return destroy(surfObject, true);
}

CFR_EXPORT CUresult cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC* pResDesc,
                                                CUsurfObject surfObject) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    Record* o = nullptr;
    if (CUresult r = find(surfObject, true, &o)) return r;
    if (!pResDesc) return CUDA_ERROR_INVALID_VALUE;
    *pResDesc = object_of(o).resource;
    return CUDA_SUCCESS;
}
