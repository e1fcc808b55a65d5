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
driver_env=()
if [ ! -e /proc/driver/nvidia/version ]; then
    driver_env=(LD_LIBRARY_PATH="$build/emulator/driver/lib")
fi
cache=$(mktemp -d /tmp/cfrjit-bench-cache.XXXXXX)
trap 'rm -rf "$cache"' EXIT
measure() { env "${driver_env[@]}" CFRJIT_CACHE_DIR="$cache" "$@" "$launch" 20000 5 2>/dev/null |
    awk '/ns_per_launch/ {print $2}'; }
base=$(measure)
off=$(measure LD_PRELOAD="$shim" CFRJIT_TIMING=off)
timed=$(measure LD_PRELOAD="$shim" CFRJIT_TIMING=summary)

python3 - "$out" "$base" "$off" "$timed" <<'PY'
import json, os, sys
out, base, off, timed = sys.argv[1], *map(float, sys.argv[2:])
load = json.load(open(os.path.join(out, "shim-load.json")))
mods = load["modules"]
cold = max((m["cold_fraction_of_ptxas"] for m in mods if m["ptxas_ms"] > 0), default=0.0)
warm = max((m["warm_us"] for m in mods), default=0.0)
launch_us = (timed - base) / 1000
hooks_us = (off - base) / 1000
device = "GPU" if os.path.exists("/proc/driver/nvidia/version") else "emulated driver"
rows = [
    ("cold load: parse + passes + print, worst module / ptxas", f"{100*cold:.2f}%", "< 1%", cold < 0.01),
    ("warm load: cache hit, worst module", f"{warm:.1f} us", "< 50 us", warm < 50),
    (f"launch: timing hooks per launch ({device})", f"{launch_us:.3f} us", "< 1 us", launch_us < 1),
    (f"launch: interposition alone, timing off ({device})", f"{hooks_us:.3f} us", "", None),
]
lines = [f"pipeline: {load['pipeline']}",
         f"launch (host ns per cuLaunchKernel): no shim {base:.1f}, shim timing off {off:.1f}, "
         f"shim timing on {timed:.1f}", "",
         f"| measure | value | goal | met |", "| --- | --- | --- | --- |"]
for name, value, goal, met in rows:
    lines.append(f"| {name} | {value} | {goal} | {'' if met is None else ('yes' if met else 'NO')} |")
text = "\n".join(lines)
print(text)
open(os.path.join(out, "shim.txt"), "w").write(text + "\n")
json.dump({"pipeline": load["pipeline"], "device": device, "modules": mods,
           "launch_ns": {"no_shim": base, "shim_timing_off": off, "shim_timing_on": timed},
           "goals": [{"measure": n, "value": v, "goal": g, "met": m} for n, v, g, m in rows]},
          open(os.path.join(out, "shim.json"), "w"), indent=2)
PY
