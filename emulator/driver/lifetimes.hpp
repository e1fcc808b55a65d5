// The life of every handle the emulated driver hands out: where it was created and destroyed (call,
// sequence number, thread, caller), tombstones that keep a destroyed handle recognisable for the
// rest of the process, ownership (a context owns its streams, a module its functions, ...), and
// the one place where a misuse is reported: an error code, or with CFRJIT_EMULATOR_STRICT=1 one
// line on stderr and abort().
#pragma once

#include <cuda.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace cfr::driver {

// Where an object was created or destroyed: the exported call, its global sequence number, the
// thread that made it and the return address into the caller.
struct Site {
    const char* call = nullptr;
    uint64_t seq = 0;
    uint32_t thread = 0;
    const void* caller = nullptr;
};

// "cuStreamCreate (#12, thread 4711, app+0x1a2b (main))".
std::string describe(const Site& site);

// The driver's one lock: every exported call holds it from entry to return.
std::recursive_mutex& driver_mutex();

// The exported call being served: the outermost one on this thread names the site of everything
// it creates or destroys. It also holds the driver's lock for the whole call.
class ApiCall {
public:
    ApiCall(const char* name, const void* caller);
    ~ApiCall();
    ApiCall(const ApiCall&) = delete;
    ApiCall& operator=(const ApiCall&) = delete;
    // The site of the running call on this thread ("(driver)" outside any call).
    static Site current();

private:
    std::unique_lock<std::recursive_mutex> lock_;
    bool outermost_;
};

// Opens every exported entry point: names the call after the function and records its caller.
#define CFR_API() ::cfr::driver::ApiCall cfr_api_call_(__func__, __builtin_return_address(0))

enum class Kind : uint8_t {
    Context,
    Stream,
    Event,
    Module,
    Library,
    Function,
    Kernel,
    Graph,
    GraphNode,
    GraphExec,
    DeviceMemory,
    ModuleVariable,
    HostMemory,
    HostRegistration,
    Array,
    TexObject,
    SurfObject,
    LinkState,
};
const char* kind_name(Kind kind);

// Value spaces of handles: opaque handles made by the driver (never reused), texture and surface
// object numbers, and device and host address ranges (looked up by any address inside them).
enum class Space : uint8_t { Handle, Texture, Device, Host };
using RecordKey = std::pair<Space, uint64_t>;

// Everything behind a handle; the destructor releases what the object holds.
struct Object {
    virtual ~Object() = default;
    uint64_t handle = 0;
};

struct Record {
    Kind kind{};
    RecordKey key{};
    uint64_t bytes = 0; // address ranges
    std::unique_ptr<Object> object;
    Site created;
    Site destroyed; // call == nullptr while alive
    std::vector<RecordKey> parents;
    std::set<RecordKey> children; // live ones
    bool alive() const { return destroyed.call == nullptr; }
};

class Registry {
public:
    // A fresh opaque handle value.
    uint64_t new_handle();
    // Registers a live object; a dead record with the same key (a re-registered host range) is
    // replaced. Its parents own it: destroying a parent destroys it first.
    Record& add(Kind kind, RecordKey key, uint64_t bytes, std::unique_ptr<Object> object,
                const std::vector<RecordKey>& parents);
    // The record with exactly this key, alive or dead; nullptr when it never existed.
    Record* find(RecordKey key);
    // The record of `space` whose range holds `address`, alive or dead.
    Record* find_range(Space space, uint64_t address);
    // Destroys the record and, first, everything it owns; the site is that of the running call.
    void destroy(Record& record);
    // Destroys everything the record owns, leaving it alive.
    void destroy_children(Record& record);
    // Live records owned by `key` (a copy, safe to destroy while iterating).
    std::vector<RecordKey> children_of(RecordKey key);

private:
    std::map<RecordKey, Record> records_;
    uint64_t next_handle_ = 0;
};

Registry& registry();

// A misuse of a handle in the running call. `record` is what the handle refers to (nullptr when
// it never existed). With CFRJIT_EMULATOR_STRICT=1 prints
//   cfrjit driver: strict: <call>: <kind> <handle> <what>: created by ..., destroyed by ...
// and aborts; otherwise returns `error`.
CUresult violation(CUresult error, Kind kind, uint64_t handle, const std::string& what,
                   const Record* record);
// The standard complaint about a handle that is not a live object of `kind`.
CUresult bad_handle(CUresult error, Kind kind, uint64_t handle, const Record* record);
bool strict_mode();

// "0x7cf000000040".
std::string hex(uint64_t value);

} // namespace cfr::driver
