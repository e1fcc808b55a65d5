#!/usr/bin/env bash
# The shim's overhead, called by bench/run.sh with BUILD_DIR OUT_DIR: load time per module (cold
# compile as a fraction of ptxas; warm cache hit in us) and launch time (host cost of the timing
# hooks per launch, on the emulated driver or the GPU). Writes shim.txt and shim.json.
set -euo pipefail
build=${1:?usage: run.sh BUILD_DIR OUT_DIR}
out=${2:?usage: run.sh BUILD_DIR OUT_DIR}
mkdir -p "$out"

ptx=()
for f in "$build"/examples/ptx/*.O3.ptx "$out/large.ptx"; do [ -f "$f" ] && ptx+=("$f"); done
"$build/bench/shim/bench_shim" "${ptx[@]}" --json "$out/shim-load.json" | tee "$out/shim-load.txt"

launch=$build/bench/shim/bench_shim_launch
shim=$build/lib/libcfrjit.so
if [ ! -x "$launch" ] || [ ! -f "$shim" ]; then
    echo "bench/shim: $launch or $shim not built (no CUDA toolkit?): launch figures skipped"
    exit 0
fi
driver_env=()
if [ ! -e /proc/driver/nvidia/version ]; then
    driver_env=(LD_LIBRARY_PATH="$build/emulator/driver/lib")
fi
cache=$(mktemp -d /tmp/cfrjit-bench-cache.XXXXXX)
trap 'rm -rf "$cache"' EXIT
measure() { env "${driver_env[@]}" CFRJIT_CACHE_DIR="$cache" "$@" "$launch" 20000 5 2>/dev/null |
    awk '/ns_per_launch/ {print $2}'; }
# Interleaved, best of 3 each: the machine's load moves all three alike.
min() { awk 'NR == 1 || $1 < m {m = $1} END {print m}'; }
b=() o=() t=()
for round in 1 2 3; do
    b+=("$(measure)")
    o+=("$(measure LD_PRELOAD="$shim" CFRJIT_TIMING=off)")
    t+=("$(measure LD_PRELOAD="$shim" CFRJIT_TIMING=summary CFRJIT_REPORT="$cache/report.json")")
done
base=$(printf '%s\n' "${b[@]}" | min)
off=$(printf '%s\n' "${o[@]}" | min)
timed=$(printf '%s\n' "${t[@]}" | min)
# The shim's own cost, under a driver that does nothing (bench_null_driver).
null=$build/bench/shim/null_driver
nmeasure() { env LD_LIBRARY_PATH="$null" CFRJIT_CACHE_DIR="$cache" "$@" "$launch" 200000 5 2>/dev/null |
    awk '/ns_per_launch/ {print $2}'; }
nb=() no=() nt=()
for round in 1 2 3; do
    nb+=("$(nmeasure)")
    no+=("$(nmeasure LD_PRELOAD="$shim" CFRJIT_TIMING=off)")
    nt+=("$(nmeasure LD_PRELOAD="$shim" CFRJIT_TIMING=summary)")
done
nbase=$(printf '%s\n' "${nb[@]}" | min)
noff=$(printf '%s\n' "${no[@]}" | min)
ntimed=$(printf '%s\n' "${nt[@]}" | min)
fresh_hit=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["modules"][0]; print(m["lookup_us"] if m["cache"] == "hit" else -1)' "$cache/report.json")

python3 - "$out" "$base" "$off" "$timed" "$fresh_hit" "$nbase" "$noff" "$ntimed" <<'PY'
import json, os, sys
out, base, off, timed, fresh_hit, nbase, noff, ntimed = sys.argv[1], *map(float, sys.argv[2:])
load = json.load(open(os.path.join(out, "shim-load.json")))
mods = load["modules"]
cold = max((m["cold_fraction_of_ptxas"] for m in mods if m["ptxas_ms"] > 0), default=0.0)
warm = max((m["warm_us"] for m in mods), default=0.0)
launch_us = (timed - base) / 1000
hooks_us = (off - base) / 1000
device = "GPU" if os.path.exists("/proc/driver/nvidia/version") else "emulated driver"
rows = [
    ("cold load: parse + passes + print, worst module / ptxas", f"{100*cold:.2f}%", "< 1%", cold < 0.01),
    ("warm load: cache hit, worst module (in-process, hot code)", f"{warm:.1f} us", "< 50 us", warm < 50),
    ("warm load: first hit in a fresh process (small module)", f"{fresh_hit:.1f} us", "< 50 us", 0 <= fresh_hit < 50),
    ("launch: shim's own host cost per timed launch (null driver)", f"{(ntimed - nbase) / 1000:.3f} us", "< 1 us", (ntimed - nbase) / 1000 < 1),
    ("launch: shim's own host cost per launch, timing off (null driver)", f"{(noff - nbase) / 1000:.3f} us", "", None),
    (f"launch: timing hooks per launch, driver's event records included ({device})", f"{launch_us:.3f} us", "< 1 us", launch_us < 1),
    (f"launch: interposition alone, timing off ({device})", f"{hooks_us:.3f} us", "", None),
]
lines = [f"pipeline: {load['pipeline']}",
         f"launch (host ns per cuLaunchKernel): no shim {base:.1f}, shim timing off {off:.1f}, "
         f"shim timing on {timed:.1f}",
         f"null driver (host ns per cuLaunchKernel): no shim {nbase:.1f}, shim timing off {noff:.1f}, "
         f"shim timing on {ntimed:.1f}", "",
         f"| measure | value | goal | met |", "| --- | --- | --- | --- |"]
for name, value, goal, met in rows:
    lines.append(f"| {name} | {value} | {goal} | {'' if met is None else ('yes' if met else 'NO')} |")
text = "\n".join(lines)
print(text)
open(os.path.join(out, "shim.txt"), "w").write(text + "\n")
json.dump({"pipeline": load["pipeline"], "device": device, "modules": mods,
           "fresh_process_hit_us": fresh_hit,
           "launch_ns": {"no_shim": base, "shim_timing_off": off, "shim_timing_on": timed},
           "null_driver_launch_ns": {"no_shim": nbase, "shim_timing_off": noff, "shim_timing_on": ntimed},
           "goals": [{"measure": n, "value": v, "goal": g, "met": m} for n, v, g, m in rows]},
          open(os.path.join(out, "shim.json"), "w"), indent=2)
PY
