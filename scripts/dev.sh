#!/usr/bin/env bash
# cfrjit's developer entry point: installs what is missing, configures, builds, tests, demos.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CFRJIT_BUILD_DIR:-$root/build}
jobs=${CFRJIT_JOBS:-$(nproc)}

usage() {
    cat <<'EOT'
usage: scripts/dev.sh COMMAND

  deps    install the Debian packages the build needs (only those missing)
  build   deps, then configure and build into build/ (CFRJIT_BUILD_DIR overrides)
  test    build, then run every test through ctest
  demo    build, then run cfr-opt --classify --stats on an example and write its CFGs as dot,
          and run a runtime-API example under libcfrjit.so (rewritten, cached, timed)
  bench   build, then run the benchmarks in bench/ and write their tables
  format  reformat the C++ sources with clang-format
EOT
}

packages=(cmake ninja-build g++ pkg-config libboost-graph-dev libspdlog-dev libfmt-dev catch2
    libcli11-dev liblz4-dev libzstd-dev nlohmann-json3-dev python3 python3-matplotlib clang
    libclang-rt-14-dev)

deps() {
    local missing=()
    for p in "${packages[@]}"; do
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

build() {
    deps
    local cuda_args=()
    [ -d /usr/local/cuda ] && cuda_args=(-DCUDAToolkit_ROOT=/usr/local/cuda)
    if [ ! -f "$build/build.ninja" ]; then
        cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${cuda_args[@]}"
    fi
    cmake --build "$build" -j "$jobs"
}

run_tests() {
    build
    ctest --test-dir "$build" --output-on-failure -j "$jobs" "$@"
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
        --dump-dir "$out/shim-dump" -- "$app"
    echo
    echo "== again, warm (cache hit):"
    "$build/tools/cfrjit" run --cache-dir "$cache" -- "$app" 2>&1 | grep -E "PASS|hit|miss"
    echo "== JSON report: $out/report.json; original and rewritten PTX and CFGs: $out/shim-dump/"
}

case "${1:-}" in
deps) deps ;;
build) build ;;
test) shift; run_tests "$@" ;;
demo) demo ;;
bench) build; "$root/bench/run.sh" "$build" ;;
format) find "$root" -path "$build" -prune -o \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' \) \
    -print | xargs clang-format -i ;;
-h | --help | help) usage ;;
*) usage >&2; exit 2 ;;
esac
