#!/usr/bin/env bash
# Pass cost per module beside ptxas; writes passes.txt and passes.json to OUT_DIR.
set -euo pipefail
build=${1:?usage: bench/passes/run.sh BUILD_DIR OUT_DIR}
out=${2:?usage: bench/passes/run.sh BUILD_DIR OUT_DIR}
mkdir -p "$out"
ptx=()
for f in "$build"/examples/ptx/*.ptx; do [ -f "$f" ] && ptx+=("$f"); done
[ -f "$out/large.ptx" ] && ptx+=("$out/large.ptx")
for f in "$out"/library/*.ptx; do [ -f "$f" ] && ptx+=("$f"); done # bench/run.sh writes them
"$build/bench/passes/bench_passes" "${ptx[@]}" --json "$out/passes.json" | tee "$out/passes.txt"
