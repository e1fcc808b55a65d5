// What a loaded image holds, and whether the shim may rewrite it: PTX text, a fatbin wrapper
// (0x466243B1, version 1, or version 2 for relocatable device code) or container (0xBA55ED50)
// with PTX and ELF entries (plain, LZ4 or zstd), or a cubin.
//
// The rule (docs/shim.md, "Which images are rewritten"): the driver never gets PTX for an
// architecture above the device's, and an image is rewritten only from a PTX entry not above the
// device's architecture that defines every kernel and global of the image's machine code, so that
// nothing the program can ask for is lost when the machine code is replaced. Anything else is
// passed through untouched, with the reason.
#pragma once

#include "ptx/fatbin.hpp"
#include "ptx/image.hpp"
#include "runtime/config.hpp"
#include "runtime/stats.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cfr::runtime {

enum class ImageForm {
    Text,        // PTX text: rewritten into PTX text
    Fatbin,      // a wrapper (version 1) or container: rewritten into PTX text
    Relocatable, // a version-2 wrapper (-rdc=true): one PTX per translation unit, linked by the
                 // driver
    Other,       // a cubin, or nothing the shim understands
};

// A translation unit of a relocatable image: rewritten (from `entry`), or handed to the driver
// as it is (its machine code links as it is).
struct LinkUnit {
    const void* container = nullptr;
    bool rewrite = false;
    ptx::fatbin::Entry entry;
};

struct ImagePlan {
    ImageForm form = ImageForm::Other;
    ModuleOutcome outcome = ModuleOutcome::NotAnImage; // Rewritten: rewrite `units`
    std::string reason;                                // why it is passed through, in words
    std::string description; // what the image held: "fatbin wrapper: ELF sm_90, PTX sm_100 (zstd)"
    uint32_t sm = 0;         // the target of the chosen PTX (0 for PTX text)
    // The PTX to rewrite: one text, or one per rewritten translation unit of a relocatable image.
    std::vector<std::string> units;
    // A relocatable image's translation units, in order.
    std::vector<LinkUnit> link_units;
    // Bytes of the image that the program may free after loading it, of which the shim keeps a
    // copy: PTX text (without its NUL), a container, a cubin; 0 for a fatbin wrapper, which lives
    // as long as the program.
    size_t copy_size = 0;
};

// The plan for a described image, made from the description alone. Never throws: PTX that does
// not parse comes back as NotAnImage with the reason.
ImagePlan plan_image(const ptx::image::Image& image, uint32_t device_sm, ImageScope scope);

// Describes the image (ptx::image::describe: `size` as the API says it, 0 when unknown) and plans
// from the description. Never throws: a damaged image comes back as NotAnImage with the reason.
ImagePlan plan_image(const void* image, size_t size, uint32_t device_sm, ImageScope scope);

// A copy of the plan's `copy_size` bytes of `image` (PTX text gets its NUL), or empty.
std::string copy_of_image(const void* image, const ImagePlan& plan);

// A version-2 fatbin wrapper for the driver to link as it links the original: an empty linked
// container, and per translation unit a container holding its rewritten PTX, or the unit's own.
class RelocatableImage {
public:
    // `rewritten`: the rewritten PTX of the units marked `rewrite`, in order.
    RelocatableImage(const std::vector<LinkUnit>& units, const std::vector<std::string>& rewritten);
    RelocatableImage(const RelocatableImage&) = delete;
    RelocatableImage& operator=(const RelocatableImage&) = delete;
    const void* wrapper() const { return &wrapper_; }

private:
    struct Wrapper {
        uint32_t magic;
        uint32_t version;
        const void* data;
        const void* const* prelinked;
    };
    std::string linked_;
    std::vector<std::string> rebuilt_;
    std::vector<const void*> list_;
    Wrapper wrapper_{};
};

} // namespace cfr::runtime
