#!/usr/bin/env bash
# CTest checks of scripts/gpu-check.sh on the emulated driver:
#   run_check.sh page OUT       a short run (two examples with their sm_90 and multi-architecture
#                               builds, one suite program when built, three driver apps with
#                               reset_app repeated, the clients where they import, one timing
#                               round, stand-ins for compute-sanitizer, ncu and nsys): exit 0,
#                               the page has its sections and rows (check_page.py),
#                               docs/results/gpu.md untouched, the HTML page beside it
#                               well-formed (check_page_html.py), and --page-from writes the
#                               same page again from the run's record
#   run_check.sh mismatch OUT   the same with a line planted in one native output: exit 1, and
#                               the page reports that program's runs as different
#   run_check.sh timing-only OUT
#                               --timing-only with two timing rounds, from a bundle of the
#                               build: exit 0, only the timed programs run natively (once each)
#                               and no correctness run under the shim, every timing run
#                               compared, the page says so and names the bundle's commit
#   run_check.sh jit-cost OUT JIT_COST
#                               jit_cost times an example's PTX and reports a file the driver
#                               refuses
# GPU_CHECK_SCRIPT, GPU_CHECK_BUILD and GPU_CHECK_SOURCE come from CTest. Prints
# "gpu-check test: OK".
set -u
mode=$1 out=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$GPU_CHECK_BUILD
rm -rf "$out"
mkdir -p "$out"
fail() { echo "FAILED: $*"; exit 1; }

suite_program=early_return
common=(--emulated --no-build --build "$build" --quick --reps 1 --jobs 2 --jit-runs 1
    --examples short_circuit,nested_loops --suite "$suite_program"
    --out "$out/gpu.md" --work "$out/work")

# Without bench/ (CFRJIT_BENCH=OFF, the sanitizer builds) there is no jit_cost: the page says so.
page_args=()
[[ -x $build/bench/gpu/jit_cost ]] || page_args=(--no-jit-cost)

fingerprint() { sha256sum "$GPU_CHECK_SOURCE/docs/results/gpu.md" 2>/dev/null || echo absent; }

case $mode in
page)
    before=$(fingerprint)
    apps=reset_app,graph_capture_app,rdc_app
    "$GPU_CHECK_SCRIPT" "${common[@]}" --campaign --apps "$apps" --reset-runs 2 \
        --compute-sanitizer "$here/fake_compute_sanitizer.sh" --ncu "$here/fake_profiler.sh" \
        --nsys "$here/fake_profiler.sh" 2>"$out/stderr"
    status=$?
    tail -5 "$out/stderr"
    [[ $status == 0 ]] || fail "gpu-check exit status $status (want 0)"
    [[ $(fingerprint) == "$before" ]] || fail "docs/results/gpu.md was written by an emulated run"
    grep -q "timing round 1" "$out/stderr" || fail "no progress on stderr"
    suite_args=()
    [[ -x $build/bench/divergence/bin/${suite_program}_drv ]] &&
        suite_args=(--suite "$suite_program")
    grep -q "time budget" "$out/stderr" || fail "no time budget on stderr"
    app_args=()
    [[ -x $build/tests/driver/apps/reset_app_static ]] && app_args=(--apps "$apps")
    arch_args=()
    [[ -x $build/examples/bin/short_circuit_rt_sm90 ]] && arch_args=(--arch-builds)
    python3 "$here/check_page.py" "$out/gpu.md" --examples short_circuit,nested_loops \
        "${suite_args[@]}" "${page_args[@]}" "${app_args[@]}" "${arch_args[@]}" --sanitizer \
        --profilers || fail "page check"
    python3 "$here/../report/check_page_html.py" "$out/gpu.html" || fail "the HTML page"
    grep -q "Device time relative to native" "$out/gpu.html" || fail "the HTML page lacks the tables"
    # The record alone writes the same page again (run nothing); only the header says so.
    "$GPU_CHECK_SCRIPT" --build "$build" --page-from "$out/work/runs.json" --out "$out/again.md" \
        2>>"$out/stderr" || fail "--page-from exit status $?"
    grep -q "^| page | written again from the check's record" "$out/again.md" ||
        fail "the page written again does not say so"
    diff <(grep -v "^| page |" "$out/again.md") "$out/gpu.md" >"$out/again.diff" ||
        fail "the page written again from the record differs: $(head -c 600 "$out/again.diff")"
    ;;
mismatch)
    "$GPU_CHECK_SCRIPT" "${common[@]}" --apps none --no-clients --inject-mismatch \
        short_circuit_drv 2>"$out/stderr"
    status=$?
    tail -5 "$out/stderr"
    [[ $status == 1 ]] || fail "gpu-check exit status $status (want 1)"
    python3 "$here/check_page.py" "$out/gpu.md" --examples short_circuit,nested_loops \
        --mismatch short_circuit_drv "${page_args[@]}" || fail "page check"
    ;;
timing-only)
    "$GPU_CHECK_SCRIPT" --build "$build" --bundle "$out/bundle" 2>"$out/stderr" ||
        fail "--bundle exit status $?"
    commit=$(git -C "$GPU_CHECK_SOURCE" rev-parse --short HEAD 2>/dev/null)
    "$GPU_CHECK_SCRIPT" --emulated --no-build --build "$out/bundle" --timing-only --reps 2 --jobs 2 \
        --examples short_circuit,nested_loops --suite none --apps none --out "$out/gpu.md" \
        --work "$out/work" 2>"$out/stderr"
    status=$?
    tail -5 "$out/stderr"
    [[ $status == 0 ]] || fail "gpu-check exit status $status (want 0)"
    grep -q "native runs: 2 run(s)" "$out/stderr" || fail "not only the two timed programs natively"
    grep -q "runs under the shim" "$out/stderr" && fail "correctness runs under the shim"
    grep -q "timing round 2/2" "$out/stderr" || fail "no second timing round"
    grep -q "^All [0-9]* runs under the shim printed exactly" "$out/gpu.md" ||
        fail "the timing runs were not compared"
    grep -q "Every program ran natively once (\`--timing-only\`" "$out/gpu.md" ||
        fail "the page does not say it was timing only"
    grep -q "^| nested_loops | drv | ok (1) |" "$out/gpu.md" || fail "the correctness table"
    [[ -z $commit ]] || grep -q "^| cfrjit | commit $commit.* (bundled)" "$out/gpu.md" ||
        fail "the page does not name the bundle's commit"
    rm -rf "$out/bundle"
    ;;
jit-cost)
    jit=$3
    ptx=$build/examples/ptx/short_circuit.O3.ptx
    printf '.version 8.0\n.target sm_75\nthis is not PTX\n' >"$out/broken.ptx"
    LD_LIBRARY_PATH=$build/emulator/driver/lib CFRJIT_EMULATOR_STRICT=1 \
        "$jit" --runs 3 "$ptx" "$out/broken.ptx" >"$out/jit.json" 2>"$out/jit.err"
    status=$?
    [[ $status == 1 ]] || fail "jit_cost exit status $status (want 1: one file refused)"
    python3 - "$out/jit.json" "$ptx" <<'PY' || fail "jit_cost JSON"
import json, sys
r = json.load(open(sys.argv[1]))
good, bad = r["modules"]
assert r["cache_disable"] == "1" and r["module_loading"] == "EAGER", r
assert r["runs"] == 3 and r["device"], r
assert good["file"] == sys.argv[2] and len(good["ms"]) == 3, good
assert 0 < good["best_ms"] <= good["median_ms"] <= max(good["ms"]), good
assert good["bytes"] > 0 and "error" not in good, good
assert "error" in bad and "best_ms" not in bad, bad
print("jit_cost:", good["best_ms"], "ms best;", bad["error"])
PY
    ;;
*) fail "unknown mode $mode" ;;
esac
echo "gpu-check test: OK"
