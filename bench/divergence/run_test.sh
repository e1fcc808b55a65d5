#!/usr/bin/env bash
# One CTest check of a divergence-suite program on the emulated driver:
#   run_test.sh native PROGRAM ARGS...
#       runs the program; its output, then "[exit N]".
#   run_test.sh shim CFRJIT PROGRAM ARGS...
#       runs the program natively, then under `cfrjit run` with a fresh cache (the pipeline and
#       policy come from the environment: CFRJIT_PASSES, CFRJIT_POLICY; unset means the default);
#       both runs must pass with the same output, the shim must log no warning or error, and its
#       report must show every launched kernel rewritten and timed. Prints "suite: OK".
# The emulated driver's directory comes from CFRJIT_EMULATOR_LIB.
set -u
mode=${1:?usage: run_test.sh native|shim ...}
shift
emulator=${CFRJIT_EMULATOR_LIB:?CFRJIT_EMULATOR_LIB must name the emulated driver directory}

if [[ $mode == native ]]; then
    LD_LIBRARY_PATH=$emulator "$@"
    status=$?
    echo "[exit $status]"
    exit $status
fi
[[ $mode == shim ]] || { echo "run_test.sh: unknown mode $mode"; exit 2; }

cfrjit=$1
shift
work=$(mktemp -d /tmp/cfrjit-suite.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() {
    echo "FAILED: $*"
    for f in "$work"/*.out "$work"/*.err; do echo "--- $f"; cat "$f"; done
    exit 1
}

LD_LIBRARY_PATH=$emulator "$@" >"$work/native.out" 2>"$work/native.err" ||
    fail "the program fails without the shim"
CFRJIT_EMULATOR_LIB=$emulator "$cfrjit" run --emulator --cache-dir "$work/cache" \
    --report "$work/report.json" -- "$@" >"$work/shim.out" 2>"$work/shim.err" ||
    fail "the program fails under the shim"
cat "$work/shim.out"
cmp -s "$work/native.out" "$work/shim.out" || fail "the output differs under the shim"
if grep -E "^cfrjit (warning|error):" "$work/shim.err"; then fail "the shim logged a problem"; fi
python3 - "$work/report.json" <<'PY' || fail "report check"
import json, sys
report = json.load(open(sys.argv[1]))
kernels = [k for k in report["kernels"] if k["launches"] > 0]
assert kernels, "no kernel launched"
for k in kernels:
    assert k.get("rewritten"), f"{k['name']}: not rewritten"
    assert k["timed"] == k["launches"], f"{k['name']}: {k['timed']} of {k['launches']} launches timed"
print("pipeline", report["pipeline"] or "(empty)", "|",
      ", ".join(f"{k['name']} x{k['launches']}" for k in kernels))
PY
echo "suite: OK"
