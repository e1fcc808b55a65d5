#!/usr/bin/env bash
# The adaptive policy end to end on the emulated driver:
#   run_adaptive.sh CFRJIT [--runs N] [--fault] [--expect-cheaper] [--expect-decided]
#                   -- PROGRAM [ARGS...]
# runs PROGRAM without the shim, then N times (default 2) under `cfrjit run --policy adaptive`
# with one cache. Every output must equal the program's alone and no run may log a warning;
# every launched kernel must report a variant; a kernel decided in one run must report
# `decision: cache` in the next; a measured decision must name the variant with the lowest median
# emulated time. --fault makes the driver refuse every variant (CFRJIT_TEST_FAULT=variant): each
# must be dropped with exactly one log line, and the program still passes. --expect-cheaper
# requires some kernel whose variants cost different time to have been decided, on the cheapest;
# --expect-decided, every kernel with variants to start the last run decided (from the cache).
set -u
cfrjit=$1
shift
runs=2 fault=0 cheaper=0 decided=0
while [[ $# -gt 0 && $1 != -- ]]; do
    case $1 in
    --runs) runs=$2; shift 2 ;;
    --fault) fault=1; shift ;;
    --expect-cheaper) cheaper=1; shift ;;
    --expect-decided) decided=1; shift ;;
    *) echo "run_adaptive.sh: unknown option $1"; exit 2 ;;
    esac
done
shift
[[ $# -gt 0 ]] || { echo "run_adaptive.sh: no program"; exit 2; }
emulator=${CFRJIT_EMULATOR_LIB:?}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/cfrjit-adaptive.XXXXXX)
trap 'rm -rf "$work"' EXIT
export CFRJIT_CACHE_DIR=$work/cache
fail() { echo "FAILED: $*"; for f in "$work"/*.err; do [[ -s $f ]] && { echo "--- $f"; tail -40 "$f"; }; done; exit 1; }

LD_LIBRARY_PATH=$emulator "$@" >"$work/alone.out" 2>"$work/alone.err" || fail "program fails alone"
[[ $fault == 1 ]] && export CFRJIT_TEST_FAULT=variant
reports=() logs=
for ((run = 1; run <= runs; ++run)); do
    "$cfrjit" run --policy adaptive --report "$work/r$run.json" -- "$@" \
        >"$work/shim$run.out" 2>"$work/shim$run.err" || fail "program fails under the shim (run $run)"
    cmp -s "$work/alone.out" "$work/shim$run.out" || {
        diff "$work/alone.out" "$work/shim$run.out" | head -20
        fail "output differs under the shim (run $run)"
    }
    if [[ $fault == 0 ]] && grep -E "^cfrjit (warning|error):" "$work/shim$run.err"; then
        fail "log lines (run $run)"
    fi
    reports+=("$work/r$run.json")
    logs+="${logs:+,}$work/shim$run.err"
done
args=()
[[ $fault == 1 ]] && args+=(--fault "$logs")
[[ $cheaper == 1 ]] && args+=(--expect-cheaper)
[[ $decided == 1 ]] && args+=(--expect-decided)
python3 "$here/check_adaptive.py" "${args[@]}" "${reports[@]}" || fail "report check"
"$cfrjit" cache show >"$work/show.txt" 2>&1 || fail "cfrjit cache show fails"
grep -q "decision(s)" "$work/show.txt" || fail "cfrjit cache show prints no summary"
sed -n '/CUDA kernel summary/,/cfrjit passes/p' "$work/shim$runs.err" | head -12
echo "adaptive: OK"
