#!/usr/bin/env bash
# Linearization (seeds 002 and 003) beside seed 000's restructuring: every example and the kernels
# in kernels/ on the emulator (warp instructions, SIMD efficiency, redundant block executions,
# reconvergence stack depth), static growth, ptxas registers and SASS size, pass time beside
# ptxas, what the cost model chose, and the synthetic CFGs. Writes linearization*.json,
# synth-*.json/txt (the synthetic CFGs' counts: cfr-synth and bench_linearization
# --synth-nodes) and linearization.md (the tables of docs/results/linearization.md) to OUT_DIR.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: bench/linearization/run.sh BUILD_DIR OUT_DIR}
out=${2:?usage: bench/linearization/run.sh BUILD_DIR OUT_DIR}
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
graphs=${CFRJIT_BENCH_RANDOM_GRAPHS:-2000}
mkdir -p "$out/linearization-kernels"
for kernel in "$here"/kernels/*.cu; do
    "$nvcc" -ptx -arch=sm_75 -O3 "$kernel" -o "$out/linearization-kernels/$(basename "$kernel" .cu).ptx"
done
bench="$build/bench/linearization/bench_linearization"
"$bench" --extra "$out"/linearization-kernels/*.ptx --work "$out" --json "$out/linearization.json"
"$bench" --level O0 --no-native --extra "$out"/linearization-kernels/*.ptx --work "$out" \
    --json "$out/linearization-O0.json"
synth="$build/tools/cfr-synth/cfr-synth"
configs=(-c none -c loop -c loop-copy -c loop+branch -c loop-copy+branch -c linearize-O0
         -c linearize-O1 -c linearize-O2 -c linearize -c linearize+merge -c blockip)
"$synth" run -n 7 -q "${configs[@]}" --json "$out/synth-run.json" > "$out/synth-run.txt"
"$bench" --synth-nodes 7 "${configs[@]}" --json "$out/synth-counts.json"
"$synth" random --seed 1 --count "$graphs" -q "${configs[@]}" \
    --ptxas /usr/local/cuda/bin/ptxas --ptxas-every 20 --json "$out/synth-random.json" \
    > "$out/synth-random.txt"
python3 "$here/tables.py" "$out" > "$out/linearization.md"
echo "bench/linearization: tables in $out/linearization.md"
