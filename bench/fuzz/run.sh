#!/usr/bin/env bash
# A fuzzing campaign over every libFuzzer target of a build (tests/fuzz/):
#   bench/fuzz/run.sh BUILD_DIR [CPU_HOURS] [OUT_DIR]
# splits CPU_HOURS (default 1) of CPU time equally among the targets and runs them one after the
# other (or CFRJIT_FUZZ_JOBS at once), each from its seed corpora and the corpus kept in OUT_DIR
# from earlier campaigns, in libFuzzer's fork mode so that a crash is recorded and fuzzing goes on.
# The budget is CPU time, not wall time: a target runs in rounds until its processes have used
# their share, so a campaign run with `nice` on a busy machine does as much work as on an idle one.
# Writes OUT_DIR/results.md and results.json (default OUT_DIR: BUILD_DIR/fuzz-campaign): per
# target the CPU and wall seconds, executions, coverage (libFuzzer's cov and ft), corpus size, the
# crashes, timeouts and out-of-memory inputs found (kept in OUT_DIR/artifacts/<target>/), and the
# distinct findings among them, each with the summary line its sanitizer prints.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "${1:?usage: bench/fuzz/run.sh BUILD_DIR [CPU_HOURS] [OUT_DIR]}" && pwd)
hours=${2:-1}
out=${3:-$build/fuzz-campaign}
jobs=${CFRJIT_FUZZ_JOBS:-1}
mkdir -p "$out"
out=$(cd "$out" && pwd)

mapfile -t fuzzers < <(find "$build/tests/fuzz" -maxdepth 1 -name '*_fuzzer' -type f -perm -u+x | sort)
if [ ${#fuzzers[@]} -eq 0 ]; then
    echo "no fuzz targets in $build/tests/fuzz: they come with a clang ASan build" \
        "(docs/building.md, \"Sanitizer builds\"; scripts/dev.sh test-sanitizers makes" \
        "build-asan/), then: ninja -C $build fuzzers" >&2
    exit 1
fi
share=$(python3 -c "print(max(1, int($hours * 3600 / ${#fuzzers[@]})))")
echo "fuzz campaign: ${#fuzzers[@]} targets, $share CPU seconds each, $jobs at a time, results in $out"

# round FUZZER SECONDS LOG ARTIFACTS ARGS...: one round of SECONDS of wall time (ARGS: the
# target's flags, then its corpus, then its seeds); prints the CPU seconds its processes used.
round() {
    local fuzzer=$1 seconds=$2 log=$3 artifacts=$4
    shift 4
    local TIMEFORMAT='%U %S'
    local times
    times=$({ time (cd "$artifacts" && "$fuzzer" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 \
        -ignore_ooms=1 -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$artifacts/" "$@" >"$log" 2>&1 || true); } 2>&1)
    awk '{ printf "%d\n", $1 + $2 + 0.5 }' <<<"$times"
}

# A target's rounds until it has used its share of CPU time. Its flags and seeds come from
# <fuzzer>.args, written by tests/fuzz/CMakeLists.txt.
run_target() {
    local fuzzer=$1 name
    name=$(basename "$fuzzer" _fuzzer)
    local corpus=$out/corpus/$name artifacts=$out/artifacts/$name logs=$out/logs/$name
    mkdir -p "$corpus" "$artifacts" "$logs"
    local args=() seeds=()
    while read -r kind value; do
        case $kind in
        flag) args+=("$value") ;;
        seed) seeds+=("$value") ;;
        esac
    done <"$fuzzer.args"
    local used=0 rounds=0 start=$SECONDS
    while [ "$used" -lt "$share" ]; do
        local left=$((share - used))
        local wall=$((left < 30 ? 30 : left > 600 ? 600 : left))
        rounds=$((rounds + 1))
        local cpu
        cpu=$(round "$fuzzer" "$wall" "$logs/round$rounds.log" "$artifacts" "${args[@]}" \
            "$corpus" "${seeds[@]}")
        used=$((used + cpu))
    done
    printf '%s %s %s\n' "$used" "$((SECONDS - start))" "$rounds" >"$logs/usage"
    echo "$name: $used CPU seconds in $((SECONDS - start)) s, $rounds rounds"
}

running=0
for fuzzer in "${fuzzers[@]}"; do
    run_target "$fuzzer" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n
        running=$((running - 1))
    fi
done
wait

python3 "$root/bench/fuzz/summarize.py" "$out" "${fuzzers[@]}"
