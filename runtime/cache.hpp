// The on-disk cache of rewritten modules. One file per entry, written atomically (temporary file
// and rename), verified on every read; a directory that is not the user's own, or that others
// may write to, is not used.
#pragma once

#include "runtime/config.hpp"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cfr::runtime {

class CacheError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// What a rewritten module depends on besides its PTX text and the cfrjit version.
struct CompileSettings {
    std::string pipeline; // its spelling
    // A module compiled at CFRJIT_VERIFY=off is not one a run at full may be served.
    VerifyLevel verify = VerifyLevel::Cheap;
    std::vector<std::string> kernels; // CFRJIT_KERNELS: only these are rewritten
};

// The key of a module: its PTX text, the settings it is compiled with and the cfrjit version.
uint64_t cache_key(std::string_view ptx, const CompileSettings& settings);

struct CacheEntryInfo {
    std::string path;
    uint64_t key = 0;
    uint64_t size = 0; // bytes on disk
    bool valid = false;
    std::string problem; // why it is not valid
};

class ModuleCache {
public:
    // Creates the directory (mode 0700) if needed. Throws CacheError when it cannot be used.
    explicit ModuleCache(std::string dir);

    const std::string& dir() const { return dir_; }
    std::string path_of(uint64_t key) const;

    enum class Lookup { Hit, Miss, Damaged };
    struct Result {
        Lookup status = Lookup::Miss;
        std::string payload;
        std::string problem; // for Damaged
    };
    // A damaged entry (bad magic, version, key, length or checksum) is removed and reported as
    // Damaged; its contents are never returned.
    Result load(uint64_t key) const;

    // Throws CacheError when the entry cannot be written.
    void store(uint64_t key, std::string_view payload) const;

    std::vector<CacheEntryInfo> list() const;
    size_t clear() const; // entries removed

private:
    std::string dir_;
};

// Encoding of one entry: header (magic, format version, key, payload length, checksum), payload.
std::string encode_entry(uint64_t key, std::string_view payload);
// Throws CacheError saying what is wrong.
std::string decode_entry(uint64_t key, std::string_view bytes);

} // namespace cfr::runtime
