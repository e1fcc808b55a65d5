// CUDA arrays of the emulated driver: an array is a dense block of emulator global memory (rows
// of Width elements, Height rows per slice, Depth slices) behind a CUarray handle.
#pragma once

#include "emulator/driver/driver.hpp"

namespace cfr::driver {

struct Array {
    emu::DevicePtr data = 0;
    CUDA_ARRAY3D_DESCRIPTOR desc{};
    size_t element_bytes = 0;
    size_t pitch = 0; // bytes of one row
};

// The live array behind a handle, or nullptr.
Array* lookup_array(CUarray array);
// Bytes of one channel of a format, or 0 when the format is not supported.
size_t format_bytes(CUarray_format format);
// A 2D copy where either side may be a CUDA array (cuMemcpy2D and its variants).
CUresult copy_2d(const CUDA_MEMCPY2D* copy, const char* api);

} // namespace cfr::driver
