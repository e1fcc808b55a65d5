#!/usr/bin/env bash
# A program under the shim on the emulated driver, compared with the program alone:
#   run_program.sh CFRJIT [--runs N] [--images SCOPE] [--linearize] [--pipeline P]...
#                  [--expect CHECK]... -- PROGRAM [ARGS...]
# The program runs alone once, then under `cfrjit run` with the empty pipeline, the default one
# and the full restructuring (loop + branch), with --linearize also linearize and the adaptive
# policy, and each --pipeline P, N times each (default 1), with a fresh cache for the first run
# of each pipeline. Every run's output must equal the program's alone, no run may log a warning,
# and every report must pass the checks (tests/shim/check_report.py; CHECK is one of its options,
# e.g. --expect kernels-rewritten --expect outcome=no-ptx).
set -u
cfrjit=$1
shift
runs=1 checks=() images=() pipelines=("" default "restructure-loops,restructure-branches<selective=true>")
while [[ $# -gt 0 && $1 != -- ]]; do
    case $1 in
    --runs) runs=$2; shift 2 ;;
    --images) images=(--images "$2"); shift 2 ;;
    --linearize) pipelines+=(linearize adaptive); shift ;;
    --pipeline) pipelines+=("$2"); shift 2 ;;
    --expect) checks+=("--$2"); shift 2 ;;
    *) echo "run_program.sh: unknown option $1"; exit 2 ;;
    esac
done
shift
[[ $# -gt 0 ]] || { echo "run_program.sh: no program"; exit 2; }
# CFRJIT_TEST_RUNS_MAX caps N (the ASan job runs each program once per pipeline).
((runs > ${CFRJIT_TEST_RUNS_MAX:-runs})) && runs=$CFRJIT_TEST_RUNS_MAX
emulator=${CFRJIT_EMULATOR_LIB:?}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/cfrjit-program.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAILED: $*"; for f in "$work"/*.err; do [[ -s $f ]] && { echo "--- $f"; tail -40 "$f"; }; done; exit 1; }

LD_LIBRARY_PATH=$emulator "$@" >"$work/alone.out" 2>"$work/alone.err" || fail "program fails alone"
for index in "${!pipelines[@]}"; do
    pipeline=${pipelines[index]}
    passes=(--passes "$pipeline")
    [[ $pipeline == default ]] && passes=()
    [[ $pipeline == adaptive ]] && passes=(--policy adaptive)
    export CFRJIT_CACHE_DIR=$work/cache-$index
    for ((run = 1; run <= runs; ++run)); do
        tag="passes='${pipeline}' run $run"
        "$cfrjit" run "${passes[@]}" "${images[@]}" --report "$work/report.json" -- "$@" \
            >"$work/shim.out" 2>"$work/shim.err" || fail "program fails under the shim ($tag)"
        cmp -s "$work/alone.out" "$work/shim.out" || {
            diff "$work/alone.out" "$work/shim.out" | head -20
            fail "output differs under the shim ($tag)"
        }
        if grep -E "^cfrjit (warning|error):" "$work/shim.err"; then fail "log lines ($tag)"; fi
        # the adaptive policy keeps a kernel no candidate changes in its original module
        run_checks=()
        for check in ${checks[@]+"${checks[@]}"}; do
            [[ $pipeline == adaptive && $check == --kernels-rewritten ]] || run_checks+=("$check")
        done
        python3 "$here/check_report.py" "$work/report.json" ${run_checks[@]+"${run_checks[@]}"} \
            >"$work/check.txt" ||
            { cat "$work/check.txt"; fail "report check ($tag)"; }
    done
    echo "$tag: $(tail -1 "$work/check.txt")"
done
echo "program: OK"
