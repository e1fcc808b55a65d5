// cuGetExportTable: the six undocumented tables cudart requires before it makes any other call
// (CUDART_INTERFACE, TOOLS_RUNTIME_CALLBACK_HOOKS, TOOLS_TLS, context-local storage,
// CONTEXT_CHECKS, INTEGRITY_CHECK). Slot 0 of most tables holds the table's size in bytes; slots
// cudart never calls are null.
#include "emulator/driver/handles.hpp"
#include "emulator/driver/integrity.hpp"

#include <pthread.h>
#include <unistd.h>

#include <cstring>
#include <ctime>

using namespace cfr::driver;

namespace {

constexpr size_t kCudartSlots = 13, kHookSlots = 7, kTlsSlots = 4, kClsSlots = 4, kCheckSlots = 4,
                 kIntegritySlots = 3;

// ---- CUDART_INTERFACE
// -----------------------------------------------------------------------------

CUresult primary_context_of(CUcontext* pctx, CUdevice dev) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    *pctx = reinterpret_cast<CUcontext>(state().primary);
    return CUDA_SUCCESS;
}

// ---- TOOLS_RUNTIME_CALLBACK_HOOKS: scratch buffers the runtime writes into
// -----------------------

uint32_t hook_buffer1[1024];
uint32_t hook_buffer2[14];

void hook_buffer_1(void** ptr, size_t* size) {
    *ptr = hook_buffer1;
    *size = std::size(hook_buffer1);
}

void hook_buffer_2(void** ptr, size_t* size) {
    *ptr = hook_buffer2;
    *size = std::size(hook_buffer2);
}

// ---- context-local storage
// ------------------------------------------------------------------------

using ClsDtor = void (*)(CUcontext, void*, void*);

// cudart probes contexts through these slots (a miss makes it set up its state again), so a
// context that is gone is an error here, not a misuse.
Context* context_or_current(CUcontext ctx) {
    if (!ctx) return current_context_or_null();
    return find_live<Context>(reinterpret_cast<uint64_t>(ctx));
}

CUresult cls_put(CUcontext ctx, void* key, void* value, ClsDtor dtor) {
    CFR_API();
    Context* c = context_or_current(ctx);
    if (!c) return CUDA_ERROR_INVALID_CONTEXT;
    c->storage[key] = ClsEntry{value, dtor};
    return CUDA_SUCCESS;
}

CUresult cls_delete(CUcontext ctx, void* key) {
    CFR_API();
    Context* c = context_or_current(ctx);
    if (!c) return CUDA_ERROR_INVALID_CONTEXT;
    c->storage.erase(key);
    return CUDA_SUCCESS;
}

CUresult cls_get(void** value, CUcontext ctx, void* key) {
    CFR_API();
    Context* c = context_or_current(ctx);
    if (!c) return CUDA_ERROR_INVALID_CONTEXT;
    auto it = c->storage.find(key);
    if (it == c->storage.end()) return CUDA_ERROR_INVALID_HANDLE;
    *value = it->second.value;
    return CUDA_SUCCESS;
}

// ---- CONTEXT_CHECKS
// -------------------------------------------------------------------------------

CUresult context_check(CUcontext, uint32_t* result, void**) {
    if (result) *result = 0;
    return CUDA_SUCCESS;
}

uint32_t check_always_zero() {
    return 0;
}

// ---- INTEGRITY_CHECK
// ------------------------------------------------------------------------------

CUresult integrity_check(uint32_t version, uint64_t unix_seconds, uint64_t* result);

const void* cudart_interface[kCudartSlots] = {
    reinterpret_cast<const void*>(kCudartSlots * sizeof(void*)), nullptr,
    reinterpret_cast<const void*>(&primary_context_of)};
const void* tools_runtime_callback_hooks[kHookSlots] = {
    reinterpret_cast<const void*>(kHookSlots * sizeof(void*)),
    nullptr,
    reinterpret_cast<const void*>(&hook_buffer_1),
    nullptr,
    nullptr,
    nullptr,
    reinterpret_cast<const void*>(&hook_buffer_2)};
const void* tools_tls[kTlsSlots] = {reinterpret_cast<const void*>(kTlsSlots * sizeof(void*))};
const void* context_local_storage[kClsSlots] = {reinterpret_cast<const void*>(&cls_put),
                                                reinterpret_cast<const void*>(&cls_delete),
                                                reinterpret_cast<const void*>(&cls_get)};
const void* context_checks[kCheckSlots] = {
    reinterpret_cast<const void*>(kCheckSlots * sizeof(void*)), nullptr,
    reinterpret_cast<const void*>(&context_check),
    reinterpret_cast<const void*>(&check_always_zero)};
const void* integrity_table[kIntegritySlots] = {
    reinterpret_cast<const void*>(kIntegritySlots * sizeof(void*)),
    reinterpret_cast<const void*>(&integrity_check)};

CUresult integrity_check(uint32_t version, uint64_t unix_seconds, uint64_t* result) {
    if (!result) return CUDA_ERROR_INVALID_VALUE;
    IntegrityInput input;
    input.driver_version = kDriverVersion;
    input.version = version;
    input.process = static_cast<uint32_t>(getpid());
    input.thread = static_cast<uint32_t>(pthread_self());
    input.cudart_table = cudart_interface;
    input.integrity_table = integrity_table;
    input.integrity_function = integrity_table[1];
    input.unix_seconds = unix_seconds;
    IntegrityDevice device{};
    const CUuuid uuid = device_uuid();
    std::memcpy(device.uuid, uuid.bytes, 16);
    int value = 0;
    device_attribute(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, &value);
    device.pci_domain = value;
    device_attribute(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, &value);
    device.pci_bus = value;
    device_attribute(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, &value);
    device.pci_device = value;
    const auto hash = integrity_hash(input, {device});
    result[0] = hash[0];
    result[1] = hash[1];
    return CUDA_SUCCESS;
}

struct TableId {
    uint8_t uuid[16];
    const void* const* table;
};

const TableId kTables[] = {
    {{0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d,
      0xf9},
     cudart_interface},
    {{0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a,
      0x66},
     tools_runtime_callback_hooks},
    {{0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec,
      0xdc},
     tools_tls},
    {{0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95,
      0x93},
     context_local_storage},
    {{0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa,
      0x7e},
     context_checks},
    {{0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1,
      0xf2},
     integrity_table},
};

} // namespace

CFR_EXPORT CUresult cuGetExportTable(const void** ppExportTable, const CUuuid* pExportTableId) {
    CFR_API();
    if (!ppExportTable || !pExportTableId) return CUDA_ERROR_INVALID_VALUE;
    for (const TableId& t : kTables) {
        if (std::memcmp(t.uuid, pExportTableId->bytes, 16) == 0) {
            *ppExportTable = t.table;
            return CUDA_SUCCESS;
        }
    }
    *ppExportTable = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
}
