// Classifying loaded images and picking the PTX to compile.
#include "runtime/image.hpp"

#include <fmt/format.h>

#include <cstring>

namespace cfr::runtime {

namespace fb = ptx::fatbin;

namespace {

std::string describe(const std::vector<fb::Entry>& entries) {
    std::string out;
    for (const auto& e : entries) {
        if (!out.empty()) out += ", ";
        out += fmt::format("{} sm_{}", e.kind == fb::EntryKind::Ptx ? "PTX" : "ELF", e.sm_arch);
        if (e.flags & 0x8000)
            out += " (zstd)";
        else if (e.flags & 0x2000)
            out += " (lz4)";
    }
    return out.empty() ? "no entries" : out;
}

bool looks_like_ptx(const char* text, size_t n) {
    const std::string_view head(text, std::min<size_t>(n, 4096));
    return head.find(".version") != std::string_view::npos ||
           head.find(".target") != std::string_view::npos;
}

} // namespace

int choose_ptx_entry(const std::vector<fb::Entry>& entries, uint32_t device_sm) {
    int exact = -1, below = -1, newest = -1;
    for (int i = 0; i < static_cast<int>(entries.size()); ++i) {
        const auto& e = entries[i];
        if (e.kind != fb::EntryKind::Ptx) continue;
        if (e.sm_arch == device_sm && exact < 0) exact = i;
        if (e.sm_arch <= device_sm && (below < 0 || e.sm_arch > entries[below].sm_arch)) below = i;
        if (newest < 0 || e.sm_arch > entries[newest].sm_arch) newest = i;
    }
    return exact >= 0 ? exact : below >= 0 ? below : newest;
}

ExtractedImage extract_image(const void* image, size_t size, uint32_t device_sm) {
    ExtractedImage out;
    if (image == nullptr) {
        out.description = "null image";
        return out;
    }
    try {
        const void* container = nullptr;
        std::string what;
        switch (fb::classify(image)) {
        case fb::ImageKind::Elf:
            out.kind = ExtractedImage::Kind::CubinOnly;
            out.description = "cubin (ELF)";
            return out;
        case fb::ImageKind::Text: {
            const char* text = static_cast<const char*>(image);
            const size_t n = size != 0 ? strnlen(text, size) : std::strlen(text);
            if (!looks_like_ptx(text, n)) {
                out.description = "neither PTX text, fatbin nor cubin";
                return out;
            }
            out.kind = ExtractedImage::Kind::Ptx;
            out.ptx.assign(text, n);
            out.description = "PTX text";
            return out;
        }
        case fb::ImageKind::Wrapper:
            container = fb::container_of_wrapper(image);
            what = "fatbin wrapper";
            size = 0;
            break;
        case fb::ImageKind::Container:
            container = image;
            what = "fatbin";
            break;
        }
        auto entries = fb::read_container(container, size);
        out.description = fmt::format("{}: {}", what, describe(entries));
        const int chosen = choose_ptx_entry(entries, device_sm);
        if (chosen < 0) {
            out.kind = ExtractedImage::Kind::CubinOnly;
            return out;
        }
        out.kind = ExtractedImage::Kind::Ptx;
        out.sm = entries[chosen].sm_arch;
        out.ptx = std::move(entries[chosen].payload);
        const auto nul = out.ptx.find('\0');
        if (nul != std::string::npos) out.ptx.resize(nul);
    } catch (const fb::FatbinError& e) {
        out = {};
        out.description = fmt::format("damaged image: {}", e.what());
    }
    return out;
}

} // namespace cfr::runtime
