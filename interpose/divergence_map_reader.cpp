// The device side of the divergence map: cuModuleGetGlobal / cuLibraryGetGlobal for the counter
// array of each module instance, then one device-to-host copy of it, in the instance's context.
#include "interpose/divergence_map_reader.hpp"

#include "interpose/real_driver.hpp"
#include "runtime/session.hpp"

#include <atomic>
#include <string>
#include <vector>

namespace cfr::interpose {

namespace {

using runtime::CounterInstance;
using runtime::Session;

enum class Read { Done, Skipped, Failed };
enum class Last : bool { No, Yes };

std::atomic<bool> g_failure_logged{false};

void log_failure_once(const CounterInstance& in, const std::string& what) {
    if (g_failure_logged.exchange(true)) return;
    Session::get().log().warn("divergence map: cannot read the counters of module m{} ({}); its "
                              "counts stay as last read (further failures are not logged)",
                              in.module, what);
}

// The legacy stream, which the copy synchronises with, is not being captured (an error means
// another stream captures in a mode that forbids the copy).
bool legacy_stream_free() {
    auto is_capturing = driver_api().stream_is_capturing;
    if (is_capturing == nullptr) return true;
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    const CUresult r = is_capturing(nullptr, &status);
    if (r == CUDA_ERROR_NOT_SUPPORTED) return true;
    return r == CUDA_SUCCESS && status == CU_STREAM_CAPTURE_STATUS_NONE;
}

// The device address and size of a counter array in the current context.
CUresult find_array(const CounterInstance& in, const std::string& symbol, CUdeviceptr& address,
                    size_t& bytes) {
    const auto& api = driver_api();
    if (in.library)
        return api.library_get_global(
            &address, &bytes, static_cast<CUlibrary>(const_cast<void*>(in.handle)), symbol.c_str());
    return api.module_get_global(
        &address, &bytes, static_cast<CUmodule>(const_cast<void*>(in.handle)), symbol.c_str());
}

// One counter array as read: where it lies and what it held.
struct ArrayRead {
    CUdeviceptr address = 0;
    std::vector<uint64_t> counters;
};

// Copies every counter array of the instance; the current context is the instance's.
Read copy_arrays(const CounterInstance& in, std::vector<ArrayRead>& reads, std::string& error) {
    if (!legacy_stream_free()) return Read::Skipped;
    for (const auto& array : in.arrays) {
        ArrayRead read;
        size_t bytes = 0;
        if (CUresult r = find_array(in, array.symbol, read.address, bytes); r != CUDA_SUCCESS) {
            error = std::string(array.symbol) + ": " + error_name(r);
            return Read::Failed;
        }
        if (bytes != array.bytes) {
            error = array.symbol + ": " + std::to_string(bytes) + " bytes, expected " +
                    std::to_string(array.bytes);
            return Read::Failed;
        }
        read.counters.resize(bytes / sizeof(uint64_t));
        if (CUresult r = driver_api().memcpy_dtoh(read.counters.data(), read.address, bytes);
            r != CUDA_SUCCESS) {
            error = array.symbol + ": cuMemcpyDtoH: " + error_name(r);
            return Read::Failed;
        }
        reads.push_back(std::move(read));
    }
    return Read::Done;
}

// Sets the arrays just read to zero: what they counted is in the map, and a driver that keeps
// module memory past the end of its context (or gives it to the next one) must not hand the same
// visits over twice. On NVIDIA's driver that memory is about to be freed.
Read zero_arrays(const std::vector<ArrayRead>& reads, std::string& error) {
    const auto htod = driver_api().memcpy_htod;
    for (const auto& read : reads) {
        const std::vector<uint64_t> zeros(read.counters.size(), 0);
        const CUresult r = htod == nullptr
                               ? CUDA_ERROR_NOT_FOUND
                               : htod(read.address, zeros.data(), zeros.size() * sizeof(uint64_t));
        if (r != CUDA_SUCCESS) {
            error = std::string("cuMemcpyHtoD: ") + error_name(r);
            return Read::Failed;
        }
    }
    return Read::Done;
}

// Reads the instance in its context, the current one; a last read also zeroes the arrays.
Read read_arrays(const CounterInstance& in, Last last, std::vector<std::vector<uint64_t>>& data,
                 std::string& error) {
    std::vector<ArrayRead> reads;
    const Read result = copy_arrays(in, reads, error);
    if (result != Read::Done) return result;
    for (const auto& read : reads)
        data.push_back(read.counters);
    return last == Last::Yes ? zero_arrays(reads, error) : Read::Done;
}

bool api_complete() {
    const auto& api = driver_api();
    return api.ctx_get_current && api.ctx_push && api.ctx_pop && api.module_get_global &&
           api.library_get_global && api.memcpy_dtoh;
}

void read_instance(const CounterInstance& in, Last last) {
    const auto& api = driver_api();
    if (!api_complete()) {
        log_failure_once(in, "the driver lacks an entry point the map needs");
        return;
    }
    RelaxedCaptureMode relaxed;
    const auto context = static_cast<CUcontext>(const_cast<void*>(in.context));
    CUcontext current = nullptr;
    if (api.ctx_get_current(&current) != CUDA_SUCCESS) current = nullptr;
    const bool switch_context = current != context;
    if (switch_context && api.ctx_push(context) != CUDA_SUCCESS) {
        log_failure_once(in, "cannot make its context current");
        return;
    }
    std::vector<std::vector<uint64_t>> data;
    std::string error;
    const Read result = read_arrays(in, last, data, error);
    if (switch_context) {
        CUcontext popped = nullptr;
        api.ctx_pop(&popped);
    }
    if (!data.empty()) Session::get().divergence_map().snapshot(in, data);
    if (result == Read::Failed) log_failure_once(in, error);
}

void read_each(const std::vector<CounterInstance>& instances, Last last = Last::No) {
    for (const auto& in : instances)
        read_instance(in, last);
}

} // namespace

bool divergence_map_on() {
    Session& s = Session::get();
    return s.enabled() && s.config().divergence_map;
}

void counters_launched(runtime::Timed what, uint32_t id) {
    CUcontext context = nullptr;
    const auto& api = driver_api();
    if (api.ctx_get_current == nullptr || api.ctx_get_current(&context) != CUDA_SUCCESS ||
        context == nullptr)
        return;
    Session::get().counters_used(what, id, context);
}

void read_counters_in(CUcontext context) {
    if (context == nullptr || !divergence_map_on()) return;
    read_each(Session::get().divergence_map().instances_in(context));
}

void read_last_counters_in(CUcontext context) {
    if (context == nullptr || !divergence_map_on()) return;
    read_each(Session::get().divergence_map().instances_in(context), Last::Yes);
}

void read_counters_of(const void* module_handle) {
    if (!divergence_map_on()) return;
    Session& s = Session::get();
    if (auto module = s.module_of(module_handle))
        read_each(s.divergence_map().instances_of(*module));
}

void read_all_counters() {
    if (!divergence_map_on()) return;
    read_each(Session::get().divergence_map().instances());
}

} // namespace cfr::interpose
