#!/usr/bin/env bash
# Concurrency under libcfrjit.so on the emulated driver:
#   run.sh APP PTX_DIR threads|processes [THREADS STREAMS LAUNCHES [PROCESSES]]
# `threads`: APP once without the shim and once under it (fresh cache), then once more (warm).
# `processes`: PROCESSES copies of APP at once under the shim, sharing one cache directory, cold
# and then warm. Every output must equal the output without the shim, no warning may be logged,
# and each run's report (CFRJIT_REPORT) must list every kernel with every launch timed and the
# module rewritten; on the warm runs every module must come from the cache.
# Needs CFRJIT_SHIM_LIB and CFRJIT_EMULATOR_LIB; CFRJIT_SANITIZER_RUNTIME, when set (sanitizer
# builds), is preloaded before the shim.
set -u
app=$1 ptx=$2 mode=$3
threads=${4:-16} streams=${5:-3} launches=${6:-2} processes=${7:-4}
shim=${CFRJIT_SHIM_LIB:?} driver=${CFRJIT_EMULATOR_LIB:?}
preload=$shim
[ -n "${CFRJIT_SANITIZER_RUNTIME:-}" ] && preload=$CFRJIT_SANITIZER_RUNTIME:$shim
work=$(mktemp -d /tmp/cfrjit-concurrency.XXXXXX)
trap 'rm -rf "$work"' EXIT
args=("$ptx" "$threads" "$streams" "$launches")

fail() {
    echo "FAILED: $*"
    for f in "$work"/*.err; do
        [ -s "$f" ] && { echo "--- $f"; head -50 "$f"; }
    done
    exit 1
}

# Runs APP under the shim as run NAME; the output goes to NAME.out, the report to NAME.json.
shim_run() {
    env LD_PRELOAD="$preload" LD_LIBRARY_PATH="$driver" CFRJIT_CACHE_DIR="$work/cache" \
        CFRJIT_REPORT="$work/$1.json" "$app" "${args[@]}" >"$work/$1.out" 2>"$work/$1.err"
}

check_run() {
    local name=$1 want_cache=$2
    cmp -s "$work/plain.out" "$work/$name.out" || fail "output of $name differs from the run without the shim"
    if grep -E "^cfrjit (warning|error):" "$work/$name.err"; then fail "log lines in $name"; fi
    python3 - "$work/$name.json" "$want_cache" "$threads" "$streams" "$launches" <<'PY' || fail "report of $name"
import json, sys
path, want_cache = sys.argv[1], sys.argv[2]
threads, streams, launches = map(int, sys.argv[3:6])
names = ["short_circuit", "multi_exit_loop", "nested_loops", "loop_jump_in"]
r = json.load(open(path))
launched = {}
for k in r["kernels"]:
    assert k.get("rewritten"), f"{k['name']} not rewritten"
    assert k["timed"] == k["launches"], f"{k['name']}: {k['timed']} of {k['launches']} launches timed"
    launched[k["name"]] = launched.get(k["name"], 0) + k["launches"]
for i, name in enumerate(names):
    users = len(range(i, threads, len(names)))
    want = users * streams * launches
    assert launched.get(name, 0) == want, f"{name}: {launched.get(name, 0)} launches, want {want}"
modules = r["modules"]
assert len(modules) == threads, f"{len(modules)} modules, want {threads}"
for m in modules:
    assert m["rewritten"], f"module {m.get('name')} not rewritten"
    if want_cache != "any":
        assert m["cache"] == want_cache, f"module cache {m['cache']}, want {want_cache}"
print(path, ", ".join(f"{n} x{launched[n]}" for n in names if n in launched))
PY
}

LD_LIBRARY_PATH=$driver "$app" "${args[@]}" >"$work/plain.out" 2>"$work/plain.err" ||
    fail "the program fails without the shim"
grep -q "concurrency_app: OK" "$work/plain.out" || fail "no OK line without the shim"

case $mode in
threads)
    # Cold: some threads compile, others may find what one of them stored meanwhile.
    shim_run cold || fail "the program fails under the shim (cold)"
    check_run cold any
    shim_run warm || fail "the program fails under the shim (warm)"
    check_run warm hit
    ;;
processes)
    for phase in cold warm; do
        pids=()
        for p in $(seq "$processes"); do
            shim_run "$phase$p" &
            pids+=($!)
        done
        for i in "${!pids[@]}"; do
            wait "${pids[$i]}" || fail "process $((i + 1)) fails under the shim ($phase)"
        done
        want=any
        [ "$phase" = warm ] && want=hit
        for p in $(seq "$processes"); do check_run "$phase$p" "$want"; done
    done
    leftovers=$(find "$work/cache" -name '*.tmp.*' | wc -l)
    [ "$leftovers" = 0 ] || fail "$leftovers temporary files left in the cache"
    ;;
*) echo "unknown mode $mode"; exit 2 ;;
esac
echo "concurrency: OK"
