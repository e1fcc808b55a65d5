// libFuzzer target for image extraction: ptx::fatbin (classify, read_container, extract_ptx,
// write_container), ptx::image::describe, runtime::plan_image and copy_of_image. With the image's
// size known, nothing may be read outside it; a damaged image is a FatbinError or CubinError
// (plan_image: NotAnImage), never a crash.
//
// A fatbin wrapper carries no size: the reader trusts the headers of the containers it points
// to. An input that starts with the wrapper magic is [magic, version][containers...]: the harness
// puts each container in its own buffer, makes the size in its header agree with the bytes the
// input has for it, and points the wrapper (`data`, and for version 2 the NULL-terminated
// prelinked list) at them. Everything inside the containers stays as the fuzzer wrote it.
#include "ptx/fatbin.hpp"
#include "runtime/image.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace fb = cfr::ptx::fatbin;
using cfr::runtime::ImageScope;

namespace {

constexpr size_t kContainerHeaderSize = 16;
constexpr size_t kMaxContainers = 8;

template <typename T>
T load(const uint8_t* p) {
    T value;
    std::memcpy(&value, p, sizeof value);
    return value;
}

template <typename T>
void store(uint8_t* p, T value) {
    std::memcpy(p, &value, sizeof value);
}

// The device architecture to extract for, from the input's length: every choice rule is reached.
uint32_t device_sm(size_t size) {
    static constexpr uint32_t kArchs[] = {50, 75, 80, 86, 90, 100, 120};
    return kArchs[size % std::size(kArchs)];
}

using Buffer = std::vector<uint8_t>; // exactly as long as what it holds

cfr::runtime::ImagePlan plan(const void* image, size_t size, uint32_t sm) {
    cfr::runtime::ImagePlan p;
    for (const auto scope : {ImageScope::All, ImageScope::JitOnly}) {
        p = cfr::runtime::plan_image(image, size, sm, scope);
        for (const auto& unit : p.units)
            if (unit.find('\0') != std::string::npos) std::abort(); // PTX is text without NULs
    }
    return p;
}

// Entries read back from a container written from them are the same entries.
void check_write_round_trip(const std::vector<fb::Entry>& entries) {
    const std::string written = fb::write_container(entries);
    const auto back = fb::read_container(written.data(), written.size());
    if (back.size() != entries.size()) std::abort();
    for (size_t i = 0; i < back.size(); ++i)
        if (back[i].kind != entries[i].kind || back[i].sm_arch != entries[i].sm_arch ||
            back[i].payload != entries[i].payload)
            std::abort();
}

void check_image(const Buffer& image) {
    const uint32_t sm = device_sm(image.size());
    (void)cfr::runtime::copy_of_image(image.data(), plan(image.data(), image.size(), sm));
    try {
        (void)fb::extract_ptx(image.data(), sm, image.size());
    } catch (const fb::FatbinError&) {
    }
    if (image.size() < 4 || load<uint32_t>(image.data()) != fb::kContainerMagic) return;
    std::vector<fb::Entry> entries;
    try {
        entries = fb::read_container(image.data(), image.size());
    } catch (const fb::FatbinError&) {
        return;
    }
    check_write_round_trip(entries);
}

// The containers after a wrapper's 8 bytes, each in its own buffer, with its header's sizes made
// to agree with the bytes it was given. A container's extent is what its header says, cut to the
// bytes left; what is not a container takes the rest.
std::vector<Buffer> split_containers(const uint8_t* p, size_t left) {
    std::vector<Buffer> out;
    while (left >= kContainerHeaderSize && out.size() < kMaxContainers) {
        size_t extent = left;
        Buffer c(p, p + left);
        if (load<uint32_t>(p) == fb::kContainerMagic) {
            uint16_t header = load<uint16_t>(p + 6);
            if (header < kContainerHeaderSize || header > left) header = kContainerHeaderSize;
            const uint64_t fat = load<uint64_t>(p + 8);
            extent = header + static_cast<size_t>(std::min<uint64_t>(fat, left - header));
            c.resize(extent);
            store<uint16_t>(c.data() + 6, header);
            store<uint64_t>(c.data() + 8, extent - header);
        }
        out.push_back(std::move(c));
        p += extent;
        left -= extent;
    }
    return out;
}

void check_wrapper(const uint8_t* data, size_t size) {
    const uint32_t version = load<uint32_t>(data + 4);
    std::vector<Buffer> containers = split_containers(data + 8, size - 8);
    std::vector<const void*> prelinked;
    for (size_t i = 1; i < containers.size(); ++i)
        prelinked.push_back(containers[i].data());
    prelinked.push_back(nullptr);
    struct {
        uint32_t magic, version;
        const void* data;
        const void* const* prelinked;
    } wrapper{fb::kWrapperMagic, version, containers.empty() ? nullptr : containers[0].data(),
              prelinked.data()};
    if (wrapper.data == nullptr && version != fb::kWrapperVersionLinked) return; // never made
    const uint32_t sm = device_sm(size);
    (void)cfr::runtime::copy_of_image(&wrapper, plan(&wrapper, 0, sm));
    try {
        (void)fb::extract_ptx(&wrapper, sm);
    } catch (const fb::FatbinError&) {
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0; // an image is at least its terminating NUL or its magic
    if (size >= 8 && load<uint32_t>(data) == fb::kWrapperMagic) {
        check_wrapper(data, size);
        return 0;
    }
    check_image(Buffer(data, data + size));
    return 0;
}
