// CUDA arrays of the emulated driver: an array is a dense block of emulator global memory (rows
// of Width elements, Height rows per slice, Depth slices) behind a CUarray handle, owned by the
// context current at its creation.
#pragma once

#include "emulator/driver/driver.hpp"

namespace cfr::driver {

struct Array : Object {
    static constexpr Kind kKind = Kind::Array;
    ~Array() override;
    emu::DevicePtr data = 0;
    CUDA_ARRAY3D_DESCRIPTOR desc{};
    size_t element_bytes = 0;
    size_t pitch = 0; // bytes of one row
};

// The live array behind a handle, else CUDA_ERROR_INVALID_HANDLE (a reported misuse).
CUresult lookup_array(CUarray array, Array** out);
// Bytes of one channel of a format, or 0 when the format is not supported.
size_t format_bytes(CUarray_format format);

} // namespace cfr::driver
