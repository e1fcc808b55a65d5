// The shim's logger: lines "cfrjit <level>: message" on stderr or in CFRJIT_LOG_FILE. spdlog does
// the writing, behind this class, so that only log.cpp compiles spdlog.
#pragma once

#include "runtime/config.hpp"

#include <fmt/format.h>

#include <memory>
#include <string>
#include <string_view>

namespace cfr::runtime {

class Logger {
public:
    explicit Logger(const Config& config);
    ~Logger();
    Logger(const Logger&) = delete;
    Logger& operator=(const Logger&) = delete;

    template <typename... Args>
    void info(fmt::format_string<Args...> f, Args&&... args) {
        if (enabled(LogLevel::Info))
            write(LogLevel::Info, fmt::format(f, std::forward<Args>(args)...));
    }
    template <typename... Args>
    void warn(fmt::format_string<Args...> f, Args&&... args) {
        if (enabled(LogLevel::Warn))
            write(LogLevel::Warn, fmt::format(f, std::forward<Args>(args)...));
    }
    template <typename... Args>
    void error(fmt::format_string<Args...> f, Args&&... args) {
        if (enabled(LogLevel::Error))
            write(LogLevel::Error, fmt::format(f, std::forward<Args>(args)...));
    }

    bool enabled(LogLevel level) const { return level >= level_; } // a message is never Off
    void write(LogLevel level, std::string_view message);

private:
    struct Sink;
    std::unique_ptr<Sink> sink_;
    LogLevel level_;
};

} // namespace cfr::runtime
