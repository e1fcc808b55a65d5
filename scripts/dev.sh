#!/usr/bin/env bash
# cfrjit's developer entry point: installs what is missing, configures, builds, tests, demos.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CFRJIT_BUILD_DIR:-$root/build}
jobs=${CFRJIT_JOBS:-$(nproc)}

# stage NAME COMMAND...: runs COMMAND. With CFRJIT_STAGE_TIMES set (.ci/run sets it), writes
# "begin<TAB>NAME<TAB>epoch seconds" before and "end<TAB>NAME<TAB>epoch seconds" after to that
# file, so that each stage's wall time can be shown, the one that failed included.
stage() {
    local name=$1
    shift
    [ -z "${CFRJIT_STAGE_TIMES:-}" ] || printf 'begin\t%s\t%s\n' "$name" "$(date +%s)" >>"$CFRJIT_STAGE_TIMES"
    "$@"
    [ -z "${CFRJIT_STAGE_TIMES:-}" ] || printf 'end\t%s\t%s\n' "$name" "$(date +%s)" >>"$CFRJIT_STAGE_TIMES"
}

usage() {
    cat <<'EOT'
usage: scripts/dev.sh COMMAND

  deps    install the Debian packages the build needs (only those missing)
  build   deps, then configure and build into build/ (CFRJIT_BUILD_DIR overrides)
  test    build, then run every test through ctest
  test-sanitizers
          the sanitizer jobs of CI, each in its own build directory: the unit and end-to-end
          tests under AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/), the
          concurrency tests under ThreadSanitizer (build-tsan/); see docs/building.md
  test-browser
          build, install Chromium (Debian's chromium), then run the tests that load the HTML
          report in it headless (ctest -L browser), which `test` leaves out
  demo    build, then run cfr-opt --classify --stats on an example and write its CFGs as dot,
          and run a runtime-API example under libcfrjit.so (rewritten, cached, timed)
  bench   build, then run the benchmarks in bench/ and write their tables
  format  reformat the C++ sources with clang-format
EOT
}

packages=(cmake ninja-build g++ pkg-config libboost-graph-dev libspdlog-dev libfmt-dev catch2
    libcli11-dev liblz4-dev libzstd-dev nlohmann-json3-dev python3 python3-matplotlib clang-16
    libclang-rt-16-dev dpkg-dev file graphviz)

# install_missing PACKAGE...: installs those of the Debian packages that are not installed.
install_missing() {
    local missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
            missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "dev.sh: installing ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null
}

deps() {
    install_missing "${packages[@]}"
}

# configure DIR [CMAKE_ARGS...]: configures DIR (once; later calls only apply CMAKE_ARGS). Every
# build directory shares the nvcc-built programs through one cache (cmake/nvcc_cache.py).
configure() {
    local dir=$1
    shift
    local cuda_args=()
    [ -d /usr/local/cuda ] && cuda_args=(-DCUDAToolkit_ROOT=/usr/local/cuda
        -DCFRJIT_NVCC_CACHE_DIR="${CFRJIT_NVCC_CACHE_DIR:-$root/.cache/nvcc}")
    if [ ! -f "$dir/build.ninja" ]; then
        cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${cuda_args[@]}" "$@"
    elif [ $# -gt 0 ]; then
        cmake "$dir" "$@" >/dev/null # a directory configured before gets the job's settings
    fi
}

# CFRJIT_DEBUG_INFO=lines (.ci/run sets it): the build's debug information is line tables only
# (-g1). Backtraces and sanitizer reports keep their files and lines; a debugger sees no local
# variables; the compile takes a third less time than with full debug information (-g).
debug_info_flags() {
    [ "${CFRJIT_DEBUG_INFO:-full}" = lines ] || return 0
    echo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
    echo "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
}

build() {
    stage "packages" deps
    local flags=()
    mapfile -t flags < <(debug_info_flags)
    stage "configure" configure "$build" "${flags[@]}"
    stage "build" cmake --build "$build" -j "$jobs"
}

# The browser tests (label browser: the HTML report in headless Chromium) are left to
# test-browser, which installs Chromium first (about a minute where it is missing); CI runs both.
run_tests() {
    build
    stage "tests" ctest --test-dir "$build" --output-on-failure -j "$jobs" -LE browser "$@"
}

# Chromium (Debian's chromium), then the tests that load the HTML report in it; their screenshots
# are left in <build>/tests/report/screenshots/ (docs/reports.md).
test_browser() {
    build
    stage "packages (browser)" install_missing chromium
    cmake "$build" >/dev/null # finds chromium now
    stage "browser tests" ctest --test-dir "$build" --output-on-failure -j "$jobs" -L browser "$@"
}

# The sanitizer jobs (docs/building.md, "Sanitizer builds"). The first finding fails the test.
# Each build leaves out the benchmarks; docs/results/reliability.md has what each job runs and its
# time. The ASan + UBSan build is clang's, which also builds the libFuzzer targets (CFRJIT_FUZZ)
# and compiles instrumented code in half the time GCC takes.
asan_build=${CFRJIT_ASAN_BUILD_DIR:-$root/build-asan}
asan_compiler=(-DCMAKE_C_COMPILER=clang-16 -DCMAKE_CXX_COMPILER=clang++-16)
tsan_build=${CFRJIT_TSAN_BUILD_DIR:-$root/build-tsan}
sanitizer_flags=(-DCFRJIT_BENCH=OFF -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG"
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG")
suppressions=$root/scripts/sanitizers
asan_options="strict_string_checks=1:detect_stack_use_after_return=0"
ubsan_options="print_stacktrace=1:halt_on_error=1"

# Left out of the ASan + UBSan unit run: the two tests that share the random differential
# tester's 1000 graphs (each runs all of them: 11 of the run's 14 minutes of test time). The job
# gives the tester's first 100 graphs (the same seed) to cfr-synth instead; every line of passes/
# and tools/cfr-synth/ that the 1000 graphs execute, the other unit tests and those 100 graphs
# execute too (measured with gcov, docs/results/reliability.md).
asan_unit_excluded='^synth: ?random CFGs(, no pass errors| with loops, every configuration)'
asan_random_graphs=100

# ASan + UBSan, in three runs. The unit tests (label `unit`: instrumented Catch2 programs) and the
# random differential tester with leak detection. Then the fuzz targets (label `fuzz`: a short run
# of each and its reproducers). Then the programs: nvcc-built examples and test
# programs, which are not instrumented, run under the instrumented emulated driver and shim with
# the sanitizer runtime preloaded into every process of the test (shell and Python included), so
# without leak detection, and once each (CFRJIT_TEST_RUNS_MAX: the plain job repeats some 10 or
# 50 times); left out: the fuzzers (a run of their own), the install tests (packaging, no code of
# cfrjit's), the test of the build's nvcc cache (label build-tools: no code of cfrjit's) and the
# check that libcfrjit.so needs nothing but glibc (an instrumented one needs the sanitizer
# runtimes), the HTML report's example pages (label report: the shim's part of them is run by the
# other programs; the page's writer runs instrumented in the unit tests) and the browser tests.
asan_job() {
    echo "== ASan + UBSan: $asan_build"
    # The sanitizers' reports name functions and lines through clang's llvm-symbolizer.
    local llvm_bin
    llvm_bin=$(dirname "$(readlink -f "$(command -v clang++-16)")")
    local -x PATH="$llvm_bin:$PATH"
    # The compiler is chosen when the directory is first configured; one configured by another
    # compiler is configured anew.
    local compiler=("${asan_compiler[@]}")
    if [ -f "$asan_build/CMakeCache.txt" ]; then
        if grep -Eq '^CMAKE_CXX_COMPILER:[A-Z]+=.*(clang\+\+-16|llvm-16/bin/clang\+\+)$' \
            "$asan_build/CMakeCache.txt"; then
            compiler=()
        else
            rm -rf "$asan_build"
        fi
    fi
    stage "ASan + UBSan: configure" configure "$asan_build" "${compiler[@]}" \
        -DCFRJIT_SANITIZE=address,undefined -DCFRJIT_FUZZ=ON "${sanitizer_flags[@]}"
    stage "ASan + UBSan: build" cmake --build "$asan_build" -j "$jobs"
    echo "== ASan + UBSan: unit tests and the random differential tester, with leak detection"
    local leak_env=(ASAN_OPTIONS="$asan_options:detect_leaks=1" UBSAN_OPTIONS="$ubsan_options"
        LSAN_OPTIONS="suppressions=$suppressions/lsan.supp:print_suppressions=0")
    stage "ASan + UBSan: unit tests" env "${leak_env[@]}" ctest --test-dir "$asan_build" \
        --output-on-failure -j "$jobs" -L unit -E "$asan_unit_excluded" "$@"
    stage "ASan + UBSan: random graphs" env "${leak_env[@]}" \
        "$asan_build/tools/cfr-synth/cfr-synth" random --seed 20240607 \
        --count "$asan_random_graphs" --quiet
    echo "== ASan + UBSan: the fuzz targets (a short run each and their reproducers)"
    stage "ASan + UBSan: fuzz targets" ctest --test-dir "$asan_build" --output-on-failure \
        -j "$jobs" -L fuzz "$@"
    echo "== ASan + UBSan: programs on the instrumented driver and shim"
    local runtime
    runtime=$(sed -n 's/^CFRJIT_SANITIZER_RUNTIME:INTERNAL=//p' "$asan_build/CMakeCache.txt")
    stage "ASan + UBSan: programs" env LD_PRELOAD="$runtime" \
        ASAN_OPTIONS="$asan_options:detect_leaks=0:verify_asan_link_order=0" \
        UBSAN_OPTIONS="$ubsan_options" CFRJIT_TEST_RUNS_MAX=1 \
        ctest --test-dir "$asan_build" --output-on-failure -j "$jobs" -LE 'unit|fuzz|install|build-tools|browser|report' \
        -E 'needs only glibc' "$@"
}

# TSan: the concurrency tests (tests/concurrency and the unit tests named "concurrency: ..."),
# with only what they need built.
tsan_job() {
    echo "== TSan: $tsan_build"
    stage "TSan: configure" configure "$tsan_build" -DCFRJIT_SANITIZE=thread "${sanitizer_flags[@]}"
    stage "TSan: build" cmake --build "$tsan_build" -j "$jobs" --target test_shim \
        cfrjit_concurrency_app cfrjit_shim cfrjit_cuda
    stage "TSan: concurrency tests" env \
        TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$suppressions/tsan.supp" \
        ctest --test-dir "$tsan_build" --output-on-failure -j "$jobs" -R 'concurrency: ' "$@"
}

test_sanitizers() {
    stage "packages (sanitizers)" deps
    asan_job "$@"
    tsan_job "$@"
}

demo() {
    build
    local out=${CFRJIT_DEMO_OUT:-$root/demo-out}
    local ptx="$build/examples/ptx/short_circuit.O0.ptx"
    [ -f "$ptx" ] || ptx="$root/examples/ptx/short_circuit.O0.ptx"
    echo "== cfr-opt --classify --stats on $(basename "$ptx")"
    "$build/tools/cfr-opt" -i "$ptx" --classify --stats --dot "$out/dot" -o "$out/short_circuit.ptx"
    echo "== CFGs written to $out/dot/, the printed module to $out/short_circuit.ptx"

    # The shim on a real program: a runtime-API example with unstructured control flow, every
    # kernel rewritten at load time and every launch timed (on the GPU when there is one, else on
    # the emulated driver). The second run reads the rewritten module from the cache.
    local app="$build/examples/bin/short_circuit_rt"
    [ -x "$app" ] || app="$build/examples/bin/short_circuit_drv"
    local cache="$out/cache"
    rm -rf "$cache"
    echo
    echo "== cfrjit run -- $(basename "$app")   (cold: parse, passes, print, cache store)"
    "$build/tools/cfrjit" run --cache-dir "$cache" --report "$out/report.json" \
        --dump-dir "$out/shim-dump" --html "$out/report.html" -- "$app"
    echo
    echo "== again, warm (cache hit):"
    "$build/tools/cfrjit" run --cache-dir "$cache" -- "$app" 2>&1 | grep -E "PASS|hit|miss"
    echo "== JSON report: $out/report.json; HTML report: $out/report.html; original and rewritten"
    echo "   PTX and CFGs: $out/shim-dump/"
}

case "${1:-}" in
deps) deps ;;
build) build ;;
test) shift; run_tests "$@" ;;
test-browser) shift; test_browser "$@" ;;
test-sanitizers) shift; test_sanitizers "$@" ;;
demo) demo ;;
bench) build; "$root/bench/run.sh" "$build" ;;
format) find "$root" -path "$build" -prune -o \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' \) \
    -print | xargs clang-format -i ;;
-h | --help | help) usage ;;
*) usage >&2; exit 2 ;;
esac
