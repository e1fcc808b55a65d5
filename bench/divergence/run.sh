#!/usr/bin/env bash
# The divergence suite on the emulator under each pipeline (bench/divergence/run.py --help):
# writes OUT_DIR/divergence-suite.md and OUT_DIR/divergence-suite.json. Extra arguments go to
# run.py (e.g. --adaptive, --programs, --update-docs docs/results/divergence-suite.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: bench/divergence/run.sh BUILD_DIR OUT_DIR [run.py arguments]}
out=${2:?usage: bench/divergence/run.sh BUILD_DIR OUT_DIR [run.py arguments]}
shift 2
python3 "$here/run.py" --build "$build" --out "$out" "$@"
