// jit_cost: the CUDA driver's own JIT cost for PTX files. Each file is loaded with cuModuleLoadData
// N times (CUDA_CACHE_DISABLE=1 and CUDA_MODULE_LOADING=EAGER, so that every load compiles) and
// the best and median wall time of a load is printed as JSON (scripts/gpu-check.sh reads it).
#include <cuda.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Options {
    int runs = 5;
    bool warmup = true;
    std::vector<std::string> files;
};

[[noreturn]] void usage(int status) {
    std::fprintf(status == 0 ? stdout : stderr,
                 "usage: jit_cost [--runs N] [--no-warmup] FILE.ptx...\n"
                 "Loads each PTX file N times (default 5) with cuModuleLoadData under\n"
                 "CUDA_CACHE_DISABLE=1 and CUDA_MODULE_LOADING=EAGER, and prints the best and\n"
                 "median load time per file as JSON. The first file is loaded once before\n"
                 "measuring (not counted) so that the JIT compiler is in memory.\n");
    std::exit(status);
}

Options parse_options(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--help" || a == "-h") {
            usage(0);
        } else if (a == "--runs" && i + 1 < argc) {
            o.runs = std::atoi(argv[++i]);
            if (o.runs < 1) usage(2);
        } else if (a == "--no-warmup") {
            o.warmup = false;
        } else if (!a.empty() && a[0] == '-') {
            usage(2);
        } else {
            o.files.push_back(a);
        }
    }
    if (o.files.empty()) usage(2);
    return o;
}

std::string error_text(CUresult r) {
    const char* name = nullptr;
    const char* text = nullptr;
    cuGetErrorName(r, &name);
    cuGetErrorString(r, &text);
    return std::string(name ? name : "?") + ": " + (text ? text : "?");
}

std::optional<std::string> read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return std::nullopt;
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

// One load and unload; the wall time of the load in milliseconds, or the driver's error.
CUresult timed_load(const std::string& ptx, double& ms) {
    CUmodule module = nullptr;
    const auto start = std::chrono::steady_clock::now();
    const CUresult r = cuModuleLoadData(&module, ptx.c_str());
    ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (r == CUDA_SUCCESS) cuModuleUnload(module);
    return r;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

nlohmann::json measure(const std::string& path, int runs) {
    nlohmann::json out = {{"file", path}};
    const auto ptx = read_file(path);
    if (!ptx) {
        out["error"] = "cannot read the file";
        return out;
    }
    out["bytes"] = ptx->size();
    std::vector<double> times;
    for (int i = 0; i < runs; ++i) {
        double ms = 0;
        if (const CUresult r = timed_load(*ptx, ms); r != CUDA_SUCCESS) {
            out["error"] = error_text(r);
            return out;
        }
        times.push_back(ms);
    }
    out["ms"] = times;
    out["best_ms"] = *std::min_element(times.begin(), times.end());
    out["median_ms"] = median(times);
    return out;
}

struct Device {
    CUdevice device = 0;
    CUcontext context = nullptr;
    std::string name;
    int driver_version = 0;
};

std::optional<Device> open_device() {
    Device d;
    CUresult r = cuInit(0);
    if (r == CUDA_SUCCESS) r = cuDeviceGet(&d.device, 0);
    if (r == CUDA_SUCCESS) r = cuDevicePrimaryCtxRetain(&d.context, d.device);
    if (r == CUDA_SUCCESS) r = cuCtxSetCurrent(d.context);
    if (r != CUDA_SUCCESS) {
        std::fprintf(stderr, "jit_cost: cannot open device 0: %s\n", error_text(r).c_str());
        return std::nullopt;
    }
    char name[256] = {};
    if (cuDeviceGetName(name, sizeof name, d.device) == CUDA_SUCCESS) d.name = name;
    cuDriverGetVersion(&d.driver_version);
    return d;
}

} // namespace

int main(int argc, char** argv) {
    const Options o = parse_options(argc, argv);
    // Read by the driver at cuInit: no disk cache, and every module compiled when it is loaded.
    setenv("CUDA_CACHE_DISABLE", "1", 1);
    setenv("CUDA_MODULE_LOADING", "EAGER", 1);
    const auto device = open_device();
    if (!device) return 2;

    nlohmann::json report = {{"device", device->name},
                             {"driver_version", device->driver_version},
                             {"cache_disable", std::getenv("CUDA_CACHE_DISABLE")},
                             {"module_loading", std::getenv("CUDA_MODULE_LOADING")},
                             {"runs", o.runs}};
    if (o.warmup)
        if (const auto ptx = read_file(o.files.front())) {
            double ms = 0;
            timed_load(*ptx, ms);
            report["warmup_ms"] = ms;
        }
    bool failed = false;
    auto& modules = report["modules"] = nlohmann::json::array();
    for (const auto& file : o.files) {
        modules.push_back(measure(file, o.runs));
        failed = failed || modules.back().contains("error");
    }
    cuDevicePrimaryCtxRelease(device->device);
    std::cout << report.dump(1) << "\n";
    return failed ? 1 : 0;
}
