// One reading of an image: its form from the first bytes, then each container and each
// machine-code entry's symbol table once.
#include "ptx/image.hpp"

#include <cctype>
#include <cstring>
#include <string_view>

namespace cfr::ptx::image {
namespace {

bool looks_like_ptx(std::string_view text) {
    const std::string_view head = text.substr(0, 4096);
    return head.find(".version") != std::string_view::npos ||
           head.find(".target") != std::string_view::npos;
}

// The architecture a PTX text targets (`.target sm_90a` -> 90); 0 when it names none.
uint32_t ptx_target(std::string_view text) {
    const size_t at = text.find(".target");
    if (at == std::string_view::npos) return 0;
    const size_t sm = text.find("sm_", at);
    const size_t eol = text.find('\n', at);
    if (sm == std::string_view::npos || (eol != std::string_view::npos && sm > eol)) return 0;
    uint32_t value = 0;
    for (size_t i = sm + 3; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]));
         ++i)
        value = value * 10 + static_cast<uint32_t>(text[i] - '0');
    return value;
}

Image describe_text(const char* bytes, size_t size) {
    const std::string_view text(bytes, size != 0 ? strnlen(bytes, size) : std::strlen(bytes));
    Image out;
    out.size = text.size();
    if (!looks_like_ptx(text)) return out;
    out.form = Form::Ptx;
    out.text = text;
    out.text_sm = ptx_target(text);
    return out;
}

Entry describe_entry(fatbin::Entry raw, size_t index) {
    Entry out{std::move(raw), {}, {}};
    out.compression = fatbin::compression(out.entry);
    if (out.entry.kind != fatbin::EntryKind::Elf) return out;
    try {
        out.symbols = cubin::read_symbols(out.entry.payload);
    } catch (const cubin::CubinError& e) {
        throw cubin::CubinError("entry " + std::to_string(index + 1) + " (" +
                                fatbin::describe(out.entry) + "): " + e.what());
    }
    return out;
}

Container describe_container(const void* address, size_t size) {
    fatbin::Container read = fatbin::read(address, size);
    Container out{address, read.size, {}};
    out.entries.reserve(read.entries.size());
    for (size_t i = 0; i < read.entries.size(); ++i)
        out.entries.push_back(describe_entry(std::move(read.entries[i]), i));
    return out;
}

// A container of a -rdc wrapper, its errors prefixed with `what` ("unit 2").
Container describe_part(const void* address, const std::string& what) {
    try {
        return describe_container(address, 0);
    } catch (const fatbin::FatbinError& e) {
        throw fatbin::FatbinError(what + ": " + e.what());
    } catch (const cubin::CubinError& e) {
        throw cubin::CubinError(what + ": " + e.what());
    }
}

Image describe_cubin(const void* bytes, size_t size) {
    cubin::Cubin read = cubin::read(bytes, size);
    Image out;
    out.form = Form::Cubin;
    out.size = read.size;
    out.cubin = std::move(read.symbols);
    return out;
}

Image describe_wrapper(const void* bytes) {
    const fatbin::Wrapper wrapper = fatbin::read_wrapper(bytes);
    Image out;
    if (wrapper.version == fatbin::kWrapperVersionSingle) {
        out.form = Form::Wrapper;
        out.data = describe_container(wrapper.data, 0);
        return out;
    }
    if (wrapper.version != fatbin::kWrapperVersionLinked)
        throw fatbin::FatbinError("fatbin wrapper of unknown version " +
                                  std::to_string(wrapper.version));
    out.form = Form::LinkedWrapper;
    out.data = describe_part(wrapper.data, "linked container");
    for (const void* unit : wrapper.prelinked)
        out.units.push_back(describe_part(unit, "unit " + std::to_string(out.units.size() + 1)));
    return out;
}

const char* suffix(fatbin::Compression c) {
    switch (c) {
    case fatbin::Compression::Lz4:
        return " (lz4)";
    case fatbin::Compression::Zstd:
        return " (zstd)";
    case fatbin::Compression::None:
        break;
    }
    return "";
}

} // namespace

Image describe(const void* bytes, size_t size) {
    if (bytes == nullptr) throw fatbin::FatbinError("no image (null pointer)");
    switch (fatbin::classify(bytes, size)) {
    case fatbin::ImageKind::Text:
        return describe_text(static_cast<const char*>(bytes), size);
    case fatbin::ImageKind::Elf:
        return describe_cubin(bytes, size);
    case fatbin::ImageKind::Container: {
        Image out;
        out.form = Form::Container;
        out.data = describe_container(bytes, size);
        out.size = out.data.size;
        return out;
    }
    case fatbin::ImageKind::Wrapper:
        break;
    }
    return describe_wrapper(bytes);
}

std::string summary(const Container& container) {
    std::string out;
    for (const Entry& e : container.entries) {
        if (!out.empty()) out += ", ";
        out += e.entry.kind == fatbin::EntryKind::Ptx ? "PTX sm_" : "ELF sm_";
        out += std::to_string(e.entry.sm_arch);
        out += suffix(e.compression);
    }
    return out.empty() ? "no entries" : out;
}

} // namespace cfr::ptx::image
