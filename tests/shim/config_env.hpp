// Reading a Config from a map that stands for the environment, in the shim's unit tests.
#pragma once

#include "runtime/config.hpp"

#include <map>
#include <string>

namespace cfr::runtime::testing {

using Environment = std::map<std::string, std::string>;

inline Getenv env_of(const Environment& env) {
    return [env](const char* name) -> const char* {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
    };
}

inline Config read(const Environment& env) {
    return read_config(env_of(env));
}

// The message of the ConfigError that `env` raises, or "" when it is accepted.
inline std::string error_of(const Environment& env) {
    try {
        read(env);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

} // namespace cfr::runtime::testing
