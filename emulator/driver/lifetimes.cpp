// Handle lifetimes: call sites, the registry of live and destroyed objects, and misuse reports.
#include "emulator/driver/lifetimes.hpp"

#include <cxxabi.h>
#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace cfr::driver {

namespace {

// Opaque handles live far from host and device addresses and are never reused.
constexpr uint64_t kHandleBase = 0xcf0000000000;
constexpr uint64_t kHandleStep = 0x40;

struct CallState {
    Site site;
    unsigned depth = 0;
};

CallState& call_state() {
    thread_local CallState state;
    return state;
}

uint32_t thread_id() {
    thread_local const uint32_t id = static_cast<uint32_t>(syscall(SYS_gettid));
    return id;
}

std::atomic<uint64_t> next_seq{1};

bool tracing() {
    static const bool on = [] {
        const char* v = std::getenv("CFRJIT_EMULATOR_TRACE");
        return v && *v && std::strcmp(v, "0") != 0;
    }();
    return on;
}

std::string symbol_name(const char* mangled) {
    if (!mangled) return "?";
    int status = 0;
    char* plain = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
    std::string name = status == 0 && plain ? plain : mangled;
    std::free(plain);
    return name;
}

std::string caller_name(const void* caller) {
    Dl_info info{};
    if (!caller || !dladdr(caller, &info) || !info.dli_fname) return hex(uint64_t(caller));
    const char* slash = std::strrchr(info.dli_fname, '/');
    const char* object = slash ? slash + 1 : info.dli_fname;
    const uint64_t offset =
        uint64_t(static_cast<const char*>(caller) - static_cast<const char*>(info.dli_fbase));
    return std::string(object) + "+" + hex(offset) + " (" + symbol_name(info.dli_sname) + ")";
}

} // namespace

std::recursive_mutex& driver_mutex() {
    static auto* mutex = new std::recursive_mutex; // outlives static destructors: cudart ends late
    return *mutex;
}

ApiCall::ApiCall(const char* name, const void* caller)
    : lock_(driver_mutex()), outermost_(call_state().depth++ == 0) {
    if (!outermost_) return;
    Site& site = call_state().site;
    site = Site{name, next_seq++, thread_id(), caller};
    if (tracing()) std::fprintf(stderr, "cfrjit driver: trace %s\n", describe(site).c_str());
}

ApiCall::~ApiCall() {
    --call_state().depth;
}

Site ApiCall::current() {
    const CallState& state = call_state();
    if (state.depth == 0) return Site{"(driver)", 0, thread_id(), nullptr};
    return state.site;
}

std::string hex(uint64_t value) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
    return text;
}

std::string describe(const Site& site) {
    if (!site.call) return "(unknown)";
    return std::string(site.call) + " (#" + std::to_string(site.seq) + ", thread " +
           std::to_string(site.thread) + ", " + caller_name(site.caller) + ")";
}

const char* kind_name(Kind kind) {
    switch (kind) {
    case Kind::Context:
        return "context";
    case Kind::Stream:
        return "stream";
    case Kind::Event:
        return "event";
    case Kind::Module:
        return "module";
    case Kind::Library:
        return "library";
    case Kind::Function:
        return "function";
    case Kind::Kernel:
        return "kernel";
    case Kind::Graph:
        return "graph";
    case Kind::GraphNode:
        return "graph node";
    case Kind::GraphExec:
        return "graph exec";
    case Kind::DeviceMemory:
        return "device memory";
    case Kind::ModuleVariable:
        return "module variable";
    case Kind::HostMemory:
        return "page-locked host memory";
    case Kind::HostRegistration:
        return "registered host memory";
    case Kind::Array:
        return "array";
    case Kind::TexObject:
        return "texture object";
    case Kind::SurfObject:
        return "surface object";
    case Kind::LinkState:
        return "link state";
    }
    return "handle";
}

// ---- registry ------------------------------------------------------------------------------

uint64_t Registry::new_handle() {
    return kHandleBase + kHandleStep * ++next_handle_;
}

Record& Registry::add(Kind kind, RecordKey key, uint64_t bytes, std::unique_ptr<Object> object,
                      const std::vector<RecordKey>& parents) {
    if (bytes) { // a new range hides dead ranges it overlaps
        auto it = records_.lower_bound({key.first, key.second});
        while (it != records_.end() && it->first.first == key.first &&
               it->first.second < key.second + bytes) {
            it = it->second.alive() ? std::next(it) : records_.erase(it);
        }
        if (Record* below = find_range(key.first, key.second); below && !below->alive())
            records_.erase(below->key);
    }
    records_.erase(key);
    Record& record = records_[key];
    record.kind = kind;
    record.key = key;
    record.bytes = bytes;
    record.object = std::move(object);
    if (record.object) record.object->handle = key.second;
    record.created = ApiCall::current();
    for (const RecordKey& parent : parents) {
        auto it = records_.find(parent);
        if (it == records_.end() || !it->second.alive()) continue;
        it->second.children.insert(key);
        record.parents.push_back(parent);
    }
    return record;
}

Record* Registry::find(RecordKey key) {
    auto it = records_.find(key);
    return it == records_.end() ? nullptr : &it->second;
}

Record* Registry::find_range(Space space, uint64_t address) {
    auto it = records_.upper_bound({space, address});
    if (it == records_.begin()) return nullptr;
    --it;
    Record& r = it->second;
    if (r.key.first != space || address - r.key.second >= std::max<uint64_t>(r.bytes, 1))
        return nullptr;
    return &r;
}

std::vector<RecordKey> Registry::children_of(RecordKey key) {
    Record* r = find(key);
    return r ? std::vector<RecordKey>(r->children.begin(), r->children.end())
             : std::vector<RecordKey>{};
}

void Registry::destroy_children(Record& record) {
    for (const RecordKey& child : children_of(record.key))
        if (Record* c = find(child); c && c->alive()) destroy(*c);
}

void Registry::destroy(Record& record) {
    if (!record.alive()) return;
    destroy_children(record);
    record.destroyed = ApiCall::current();
    for (const RecordKey& parent : record.parents)
        if (Record* p = find(parent)) p->children.erase(record.key);
    record.object.reset();
}

Registry& registry() {
    static auto* r = new Registry;
    return *r;
}

// ---- misuse ------------------------------------------------------------------------------------

bool strict_mode() {
    const char* v = std::getenv("CFRJIT_EMULATOR_STRICT");
    return v && *v && std::strcmp(v, "0") != 0;
}

CUresult violation(CUresult error, Kind kind, uint64_t handle, const std::string& what,
                   const Record* record) {
    if (!strict_mode()) return error;
    std::string line = std::string("cfrjit driver: strict: ") + ApiCall::current().call + ": " +
                       kind_name(kind) + " " + hex(handle) + " " + what;
    if (record) {
        line += ": created by " + describe(record->created);
        if (!record->alive()) line += ", destroyed by " + describe(record->destroyed);
    }
    line += "\n";
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
    std::abort();
}

CUresult bad_handle(CUresult error, Kind kind, uint64_t handle, const Record* record) {
    if (!record) return violation(error, kind, handle, "was never created", nullptr);
    if (record->kind != kind)
        return violation(error, kind, handle,
                         std::string("is not a ") + kind_name(kind) + " but a " +
                             kind_name(record->kind) + (record->alive() ? "" : " (destroyed)"),
                         record);
    const char* what =
        kind == Kind::DeviceMemory || kind == Kind::ModuleVariable || kind == Kind::HostMemory
            ? "is freed"
        : kind == Kind::HostRegistration ? "is unregistered"
                                         : "is destroyed";
    return violation(error, kind, handle, what, record);
}

} // namespace cfr::driver
