// The integrity hash cudart checks through the INTEGRITY_CHECK export table: HMAC-MD2 keyed with a
// fixed 16-byte constant over the caller's identity, the tables' addresses and each device's
// identity.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace cfr::driver {

struct IntegrityInput {
    uint32_t driver_version = 0;
    uint32_t version = 0; // the version argument cudart passes (13000, 13001, 13002)
    uint32_t process = 0;
    uint32_t thread = 0; // low 32 bits of pthread_self()
    const void* cudart_table = nullptr;
    const void* integrity_table = nullptr;
    const void* integrity_function = nullptr;
    uint64_t unix_seconds = 0;
};

struct IntegrityDevice {
    uint8_t uuid[16];
    int32_t pci_domain;
    int32_t pci_bus;
    int32_t pci_device;
};

std::array<uint64_t, 2> integrity_hash(const IntegrityInput& input,
                                       const std::vector<IntegrityDevice>& devices);

} // namespace cfr::driver
