#!/usr/bin/env bash
# Runs cfrjit's benchmarks against a build tree and writes their tables and JSON to bench/out/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: bench/run.sh BUILD_DIR}
out=${CFRJIT_BENCH_OUT:-$here/out}
mkdir -p "$out"

ptx=()
for f in "$build"/examples/ptx/*.ptx; do [ -f "$f" ] && ptx+=("$f"); done
python3 "$here/frontend/gen_large_ptx.py" "$out/large.ptx" --kernels 200
"$here/frontend/library_ptx.sh" "$out/library"
for f in "$out"/library/*.ptx; do [ -f "$f" ] && ptx+=("$f"); done
echo "== front end: parse + CFG + classify, beside ptxas -arch=sm_90"
"$build/bench/bench_frontend" "${ptx[@]}" "$out/large.ptx" --json "$out/frontend.json" |
    tee "$out/frontend.txt"

for script in "$here"/*/run.sh; do
    [ -x "$script" ] || continue
    echo "== $(basename "$(dirname "$script")")"
    "$script" "$build" "$out"
done
