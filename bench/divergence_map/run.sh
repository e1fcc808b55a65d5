#!/usr/bin/env bash
# The divergence-map benchmark: compiles every example and kernels.cu to PTX with line
# information (-lineinfo, -O3 and -O0), runs BUILD_DIR/bench/divergence_map/bench_divergence_map
# over them (every count checked against the emulator's own) and writes OUT_DIR/divergence_map.md
# (Tables 1-3), OUT_DIR/divergence_map.json, one report per workload in OUT_DIR/divmap-reports/
# (the shim's format) and the annotated source of bitonic_sort -O3 by cfrjit divmap. Without nvcc
# it uses the PTX without line information from the build tree.
set -euo pipefail
build=${1:?usage: run.sh BUILD_DIR OUT_DIR}
out=${2:?usage: run.sh BUILD_DIR OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "$build" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
ptx="$out/divmap-ptx"
mkdir -p "$ptx"
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ -x "$nvcc" ]; then
    cd "$root"
    for dir in examples/*/; do
        name=$(basename "$dir")
        [ -f "${dir%/}/kernel.cu" ] || continue
        "$nvcc" -ptx -arch=sm_75 -O3 -lineinfo "${dir%/}/kernel.cu" -o "$ptx/$name.O3.ptx"
        "$nvcc" -ptx -arch=sm_75 -Xcicc -O0 -lineinfo "${dir%/}/kernel.cu" -o "$ptx/$name.O0.ptx"
    done
    "$nvcc" -ptx -arch=sm_75 -O3 -lineinfo bench/divergence_map/kernels.cu -o "$ptx/kernels.O3.ptx"
    "$nvcc" -ptx -arch=sm_75 -Xcicc -O0 -lineinfo bench/divergence_map/kernels.cu \
        -o "$ptx/kernels.O0.ptx"
fi
"$build/bench/divergence_map/bench_divergence_map" --ptx-dir "$ptx" \
    --json "$out/divergence_map.json" --report-dir "$out/divmap-reports" |
    tee "$out/divergence_map.md"
if [ -x "$build/tools/cfrjit" ]; then
    "$build/tools/cfrjit" divmap --source "$root" "$out/divmap-reports/bitonic_sort_-O3.json" |
        tee "$out/divmap-bitonic_sort.txt"
fi
