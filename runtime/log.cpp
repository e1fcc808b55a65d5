// Creating the logger; falls back to stderr when the log file cannot be opened.
#include "runtime/log.hpp"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

namespace cfr::runtime {

namespace {

spdlog::level::level_enum to_spdlog(LogLevel level) {
    switch (level) {
    case LogLevel::Trace:
        return spdlog::level::trace;
    case LogLevel::Debug:
        return spdlog::level::debug;
    case LogLevel::Info:
        return spdlog::level::info;
    case LogLevel::Warn:
        return spdlog::level::warn;
    case LogLevel::Error:
        return spdlog::level::err;
    case LogLevel::Off:
        return spdlog::level::off;
    }
    return spdlog::level::warn;
}

} // namespace

std::shared_ptr<spdlog::logger> make_logger(const Config& config) {
    spdlog::sink_ptr sink;
    std::string problem;
    if (!config.log_file.empty()) {
        try {
            sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(config.log_file);
        } catch (const spdlog::spdlog_ex& e) {
            problem = e.what();
        }
    }
    if (!sink) sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    auto logger = std::make_shared<spdlog::logger>("cfrjit", sink);
    logger->set_pattern("cfrjit %l: %v");
    logger->set_level(to_spdlog(config.log_level));
    logger->flush_on(spdlog::level::trace);
    if (!problem.empty())
        logger->warn("CFRJIT_LOG_FILE={}: {}; logging to stderr", config.log_file, problem);
    return logger;
}

} // namespace cfr::runtime
