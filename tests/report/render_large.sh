#!/usr/bin/env bash
# A page of 1,000 kernels in headless Chromium:
#   render_large.sh CFRJIT SCREENSHOT BOUND_MS
# writes a synthetic JSON report of 1,000 kernels in 100 modules with a divergence map of 4,000
# branches, makes its page with `cfrjit report`, checks it (check_html.py), and loads it in
# Chromium (browser_check.py): no console message, no request outside the file, and the first
# frame after the load event within BOUND_MS of the start (the time is printed; the bound is
# generous, so that a loaded machine does not fail it: the page renders in about 0.8 s on a
# loaded 2-core machine); then the kernel table, sorted by total time descending, must start with
# the slowest kernel.
set -u
cfrjit=$1 screenshot=$2 bound=$3
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/cfrjit-render.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
python3 - "$work/report.json" <<'PY' || fail "synthetic report"
import json, sys
kernels, branches = [], []
for i in range(1000):
    name, total = f"_Z8kernel{i}Pfi", 1000.0 * (i + 1)
    kernels.append({"name": name, "module": i // 10 + 1, "launches": 4, "timed": 4, "untimed": 0,
                    "total_ns": total, "avg_ns": total / 4, "min_ns": total / 8,
                    "max_ns": total / 2, "grid": [64, 1, 1], "block": [128, 1, 1],
                    "sizes_varied": False, "selected": True, "blocks_before": 12,
                    "blocks_after": 14, "instructions_before": 120, "instructions_after": 131,
                    "changed_by": ["restructure-branches"] if i % 2 else [], "rewritten": True,
                    "pipeline_ms": 1.5})
    branches += [{"kernel": name, "line": 100 + 7 * b, "source": None, "visits": 1000 + i,
                  "divergent": (7 * i + b) % 50} for b in range(4)]
modules = [{"id": m, "api": "cuModuleLoadData", "image": "PTX text", "key": f"{m:016x}",
            "rewritten": True, "outcome": "rewritten", "reason": "", "cache": "miss",
            "pipeline_ms": 2.5, "lookup_us": 10.0, "passes": ["restructure-branches: 3 branches"],
            "decisions": [], "kernels": []} for m in range(1, 101)]
json.dump({"version": "0.1.0", "command": "./synthetic", "date": "2026-01-01T00:00:00Z",
           "pipeline": "restructure-branches<selective=true>", "timing": "summary",
           "images": "all", "policy": "fixed", "kernels": kernels, "modules": modules,
           "graphs": [], "divergence_map": branches}, open(sys.argv[1], "w"))
PY
"$cfrjit" report "$work/report.json" -o "$work/page.html" || fail "cfrjit report"
echo "page: $(stat -c %s "$work/page.html") bytes"
python3 "$here/check_html.py" "$work/page.html" "$work/report.json" --cfgs noted ||
    fail "the page's check"
python3 "$here/browser_check.py" "$work/page.html" "$screenshot" --render-bound-ms "$bound" \
    --sorted-first _Z8kernel999Pfi ||
    fail "the page in Chromium"
echo "html report: OK"
