// The logger's spdlog side; falls back to stderr when the log file cannot be opened.
#include "runtime/log.hpp"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

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

struct Logger::Sink {
    std::shared_ptr<spdlog::logger> logger;
};

Logger::Logger(const Config& config) : sink_(std::make_unique<Sink>()), level_(config.log_level) {
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
    sink_->logger = std::make_shared<spdlog::logger>("cfrjit", sink);
    sink_->logger->set_pattern("cfrjit %l: %v");
    sink_->logger->set_level(to_spdlog(config.log_level));
    sink_->logger->flush_on(spdlog::level::trace);
    if (!problem.empty())
        warn("CFRJIT_LOG_FILE={}: {}; logging to stderr", config.log_file, problem);
}

Logger::~Logger() = default;

void Logger::write(LogLevel level, std::string_view message) {
    sink_->logger->log(to_spdlog(level), "{}", message);
}

} // namespace cfr::runtime
