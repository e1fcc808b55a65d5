// Which code of an image the emulated driver runs, chosen at load as NVIDIA's driver chooses it:
// machine code the device runs (the emulator runs it through PTX that stands for it), else the PTX
// with the highest target not above the device's, else nothing. And the JIT step that turns the
// choice into one PTX module: parsing, linking -rdc inputs, checking the target.
#pragma once

#include "ptx/ir.hpp"

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cfr::driver {

inline constexpr uint32_t kDeviceSm = 90;

// A refusal with the CUresult NVIDIA's driver gives for it and the message for stderr.
struct ImageError {
    CUresult code = CUDA_SUCCESS;
    std::string message;
};

struct PtxInput {
    std::string name; // for messages: "<ptx image>", "<fatbin compute_75>", ...
    std::string text;
    // The PTX stands for machine code the device runs: its .target is not checked.
    bool machine_code = false;
};

// What to JIT-compile, copied out of the image (which the caller may free after the load).
struct ImagePlan {
    std::vector<PtxInput> inputs;
    bool link = false; // the prelinked containers of a version-2 (-rdc) wrapper
    // Kernels and variables of machine code that the linked PTX stands for and must define.
    std::vector<std::string> required;
};

// Classifies `image` (`size` 0 when the API gives none) and chooses what will run; no JIT. Errors:
// CUDA_ERROR_INVALID_IMAGE for a damaged image, CUDA_ERROR_NO_BINARY_FOR_GPU when nothing in it
// runs on the device.
CUresult plan_image(const void* image, size_t size, ImagePlan* out, ImageError* error);

// The JIT: parses the plan's PTX (links several inputs), checks the .target against the device and
// defines the device runtime functions it declares that the driver provides
// (cudaGraphSetConditional). Errors: CUDA_ERROR_INVALID_PTX, or CUDA_ERROR_NO_BINARY_FOR_GPU when
// linked PTX lacks something of the machine code it stands for.
CUresult compile_plan(const ImagePlan& plan, ptx::Module* out, ImageError* error);

// A PTX module's .target above the device: the message NVIDIA's JIT gives, else empty.
std::string target_error(const ptx::Module& module, const std::string& name);

// The PTX of one input to cuLinkAddData: PTX text, a fatbin (its PTX, or machine code with PTX
// standing for it) or an emulator cubin. Parsed and target-checked, as NVIDIA compiles PTX inputs
// at once. `size` 0: PTX up to its NUL.
enum class LinkInputKind { Ptx, Fatbin, Cubin };
CUresult link_input(LinkInputKind kind, const void* data, size_t size, const std::string& name,
                    ptx::Module* out, ImageError* error);

} // namespace cfr::driver
