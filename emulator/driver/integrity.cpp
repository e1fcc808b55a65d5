// HMAC-MD2 over the 48-byte caller record followed by one 28-byte record per device.
#include "emulator/driver/integrity.hpp"

#include "emulator/driver/md2.hpp"

#include <cstring>

namespace cfr::driver {
namespace {

constexpr std::array<uint8_t, 16> kKey = {0x14, 0x6A, 0xDD, 0xAE, 0x53, 0xA9, 0xA7, 0x52,
                                          0xAA, 0x08, 0x41, 0x36, 0x0B, 0xF5, 0x5A, 0x9F};

} // namespace

std::array<uint64_t, 2> integrity_hash(const IntegrityInput& input,
                                       const std::vector<IntegrityDevice>& devices) {
    static_assert(sizeof(IntegrityInput) == 48 && sizeof(IntegrityDevice) == 28);
    HmacMd2 mac(kKey);
    mac.update(&input, sizeof input);
    for (const IntegrityDevice& device : devices)
        mac.update(&device, sizeof device);
    const Md2::Digest digest = mac.finish();
    std::array<uint64_t, 2> out;
    std::memcpy(out.data(), digest.data(), sizeof out);
    return out;
}

} // namespace cfr::driver
