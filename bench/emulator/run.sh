#!/usr/bin/env bash
# Emulator throughput against native C++: runs BUILD_DIR/bench/emulator/bench_emulator (2 host
# threads) and writes OUT_DIR/emulator.txt (table) and OUT_DIR/emulator.json. With
# CFRJIT_BENCH_BASELINE=<another bench_emulator binary>, the baseline and this build run
# alternately, three times each, and both tables go to emulator.txt (baseline JSON:
# emulator.baseline.json), so that the two are measured side by side under the same load.
set -euo pipefail
build=${1:?usage: run.sh BUILD_DIR OUT_DIR}
out=${2:?usage: run.sh BUILD_DIR OUT_DIR}
mkdir -p "$out"
bench="$build/bench/emulator/bench_emulator"
baseline=${CFRJIT_BENCH_BASELINE:-}
if [ -z "$baseline" ]; then
    "$bench" --json "$out/emulator.json" | tee "$out/emulator.txt"
    exit 0
fi
: >"$out/emulator.txt"
for round in 1 2 3; do
    {
        echo "-- round $round: baseline ($baseline)"
        "$baseline" --json "$out/emulator.baseline.$round.json"
        echo "-- round $round: this build"
        "$bench" --json "$out/emulator.$round.json"
    } | tee -a "$out/emulator.txt"
done
# Per kernel: the best (fastest) emulator and native times over the rounds.
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
for name in ("emulator.baseline", "emulator"):
    runs = [json.load(open(f"{out}/{name}.{r}.json")) for r in (1, 2, 3)]
    best = runs[0]
    for i, k in enumerate(best["kernels"]):
        k["emulator_seconds"] = min(r["kernels"][i]["emulator_seconds"] for r in runs)
        k["native_seconds"] = min(r["kernels"][i]["native_seconds"] for r in runs)
        k["thread_instructions_per_second"] = k["thread_instructions"] / k["emulator_seconds"]
        k["slowdown"] = k["emulator_seconds"] / k["native_seconds"]
    json.dump(best, open(f"{out}/{name}.json", "w"), indent=2)
    print(f"{name:18}", "  ".join(f"{k['kernel'].split()[0]} {k['slowdown']:.1f}x"
                                for k in best["kernels"]))
# emulator.json also carries the baseline's best times and the speed-up over it.
cur = json.load(open(f"{out}/emulator.json"))
base = json.load(open(f"{out}/emulator.baseline.json"))
for k, b in zip(cur["kernels"], base["kernels"]):
    k["baseline_emulator_seconds"] = b["emulator_seconds"]
    k["baseline_slowdown"] = b["slowdown"]
    k["speedup_over_baseline"] = b["emulator_seconds"] / k["emulator_seconds"]
json.dump(cur, open(f"{out}/emulator.json", "w"), indent=2)
PY
