#!/usr/bin/env bash
# End-to-end check of libcfrjit.so on the emulated driver:
#   run_e2e.sh CFRJIT PROGRAM MODE PIPELINE
# runs PROGRAM without the shim, then twice under `cfrjit run` (fresh cache, then warm), with
# CUDA_MODULE_LOADING=MODE and the pipeline; the outputs must match, no warning may be logged,
# the report must show every kernel launched and timed, a miss on the first run and a hit on the
# second. PIPELINE "-" means the empty pipeline. Exits 77 (skipped) for a pass not registered.
set -u
cfrjit=$1 program=$2 mode=$3 pipeline=$4
[[ $pipeline == - ]] && pipeline=
for pass in $(sed -e 's/<[^>]*>//g' -e 's/,/ /g' <<<"$pipeline"); do
    if ! "$cfrjit" passes | grep -q "^$pass "; then
        echo "pass $pass not registered: skipped"
        exit 77
    fi
done
work=$(mktemp -d /tmp/cfrjit-e2e.XXXXXX)
trap 'rm -rf "$work"' EXIT
export CUDA_MODULE_LOADING=$mode CFRJIT_CACHE_DIR=$work/cache
emulator=${CFRJIT_EMULATOR_LIB:?}

fail() { echo "FAILED: $*"; for f in "$work"/*.err; do echo "--- $f"; cat "$f"; done; exit 1; }

LD_LIBRARY_PATH=$emulator "$program" >"$work/plain.out" 2>"$work/plain.err" || fail "program fails without the shim"
for run in 1 2; do
    "$cfrjit" run --passes "$pipeline" --report "$work/r$run.json" -- "$program" \
        >"$work/shim$run.out" 2>"$work/shim$run.err" || fail "program fails under the shim (run $run)"
    cmp -s "$work/plain.out" "$work/shim$run.out" || fail "output differs under the shim (run $run)"
    grep -q "CUDA kernel summary" "$work/shim$run.err" || fail "no timing table (run $run)"
    if grep -E "^cfrjit (warning|error):" "$work/shim$run.err"; then fail "log lines (run $run)"; fi
done
python3 - "$work/r1.json" "$work/r2.json" <<'PY' || fail "report check"
import json, sys
for path, want in zip(sys.argv[1:], ["miss", "hit"]):
    r = json.load(open(path))
    ks = [k for k in r["kernels"] if k["launches"] > 0]
    assert ks, f"{path}: no kernel launched"
    for k in ks:
        assert k["timed"] == k["launches"], f"{path}: {k['name']} not timed"
        assert k.get("rewritten"), f"{path}: {k['name']} not rewritten"
        assert k.get("cache") == want, f"{path}: {k['name']} cache {k.get('cache')}, want {want}"
    print(path, want, ", ".join(f"{k['name']} x{k['launches']}" for k in ks))
PY
echo "e2e: OK"
