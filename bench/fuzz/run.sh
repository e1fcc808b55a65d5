#!/usr/bin/env bash
# A fuzzing campaign over every libFuzzer target of a build (tests/fuzz/):
#   bench/fuzz/run.sh BUILD_DIR [CPU_HOURS] [OUT_DIR]
# splits CPU_HOURS (default 1) equally among the targets and runs them one after the other (or
# CFRJIT_FUZZ_JOBS at once), each from its seed corpora and the corpus kept in OUT_DIR from
# earlier campaigns, in libFuzzer's fork mode so that a crash is recorded and fuzzing goes on.
# Writes OUT_DIR/results.md and results.json (default OUT_DIR: bench/fuzz/out): per target the
# seconds, executions, coverage (libFuzzer's cov and ft), corpus size and the crashes, timeouts
# and out-of-memory inputs found, kept in OUT_DIR/artifacts/<target>/.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "${1:?usage: bench/fuzz/run.sh BUILD_DIR [CPU_HOURS] [OUT_DIR]}" && pwd)
hours=${2:-1}
out=${3:-$root/bench/fuzz/out}
jobs=${CFRJIT_FUZZ_JOBS:-1}
mkdir -p "$out"
out=$(cd "$out" && pwd)

mapfile -t fuzzers < <(find "$build/tests/fuzz" -maxdepth 1 -name '*_fuzzer' -type f -perm -u+x | sort)
if [ ${#fuzzers[@]} -eq 0 ]; then
    echo "no fuzz targets in $build/tests/fuzz (build them with: ninja -C $build fuzzers)" >&2
    exit 1
fi
seconds=$(python3 -c "print(max(1, int($hours * 3600 / ${#fuzzers[@]})))")
echo "fuzz campaign: ${#fuzzers[@]} targets, $seconds s each, $jobs at a time, results in $out"

# One target: its flags and seeds come from <fuzzer>.args, written by tests/fuzz/CMakeLists.txt.
run_target() {
    local fuzzer=$1 name
    name=$(basename "$fuzzer" _fuzzer)
    local corpus=$out/corpus/$name artifacts=$out/artifacts/$name log=$out/logs/$name.log
    mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
    local flags=() seeds=()
    while read -r kind value; do
        case $kind in
        flag) flags+=("$value") ;;
        seed) seeds+=("$value") ;;
        esac
    done <"$fuzzer.args"
    local start=$SECONDS
    (cd "$artifacts" && "$fuzzer" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$artifacts/" \
        "${flags[@]}" "$corpus" "${seeds[@]}") >"$log" 2>&1 || true
    echo "$name: done in $((SECONDS - start)) s"
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

python3 "$root/bench/fuzz/summarize.py" "$out" "$seconds" "${fuzzers[@]}"
