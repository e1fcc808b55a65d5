// MD2 message digest (RFC 1319) and the HMAC construction built on it (RFC 2104, block size 16).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace cfr::driver {

class Md2 {
public:
    using Digest = std::array<uint8_t, 16>;

    void update(std::span<const uint8_t> bytes);
    void update(const void* data, size_t size) {
        update(std::span(static_cast<const uint8_t*>(data), size));
    }
    // Pads, appends the checksum and returns the digest; the object is spent afterwards.
    Digest finish();

    static Digest of(std::span<const uint8_t> bytes);

private:
    void compress();

    std::array<uint8_t, 48> state_{};
    std::array<uint8_t, 16> checksum_{};
    uint8_t last_checksum_byte_ = 0;
    size_t filled_ = 0;
};

// HMAC-MD2 with a 16-byte key (one MD2 block, so the key is used as is).
class HmacMd2 {
public:
    explicit HmacMd2(const std::array<uint8_t, 16>& key);
    void update(const void* data, size_t size) { inner_.update(data, size); }
    Md2::Digest finish();

private:
    std::array<uint8_t, 16> key_;
    Md2 inner_;
};

} // namespace cfr::driver
