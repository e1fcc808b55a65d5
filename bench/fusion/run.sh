#!/usr/bin/env bash
# The branch-fusion benchmark: BUILD_DIR/bench/fusion/bench_fusion over the examples and the
# divergence-map benchmark kernels (PTX with line information from bench/divergence_map/run.sh
# when it ran first into the same OUT_DIR); writes OUT_DIR/fusion.md and OUT_DIR/fusion.json.
set -euo pipefail
build=${1:?usage: run.sh BUILD_DIR OUT_DIR}
out=${2:?usage: run.sh BUILD_DIR OUT_DIR}
mkdir -p "$out"
"$build/bench/fusion/bench_fusion" --ptx-dir "$out/divmap-ptx" --json "$out/fusion.json" |
    tee "$out/fusion.md"
