#!/usr/bin/env bash
# The synthetic-CFG experiment of seed 000 section V-C (Fig. 6) and a longer random-CFG
# differential run: writes OUT_DIR/synth.{csv,json,txt}, synth_counts.{txt,json},
# fig6.{png,svg}, synth_random.{txt,json}. Fails if any configuration's output differs from the
# original's (other failures -- pass errors, results that are not tail-structured, redundant
# executions left after branch restructuring -- are printed loudly and listed in the JSON, but
# do not stop the other benchmarks). CFRJIT_SYNTH_NODES (default 7) and CFRJIT_SYNTH_RANDOM_SECONDS (default 300) bound
# the two runs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: run.sh BUILD_DIR OUT_DIR}
out=${2:?usage: run.sh BUILD_DIR OUT_DIR}
mkdir -p "$out"
synth="$build/tools/cfr-synth/cfr-synth"
nodes=${CFRJIT_SYNTH_NODES:-7}
seconds=${CFRJIT_SYNTH_RANDOM_SECONDS:-300}
status=0

"$synth" count -n "$nodes" --json "$out/synth_counts.json" | tee "$out/synth_counts.txt"
"$synth" run -n "$nodes" --csv "$out/synth.csv" --json "$out/synth.json" \
    --no-redundant-after loop+branch --no-redundant-after loop-copy+branch |
    tee "$out/synth.txt" || true

python=""
for candidate in python3 /usr/bin/python3; do
    if "$candidate" -c "import matplotlib" 2>/dev/null; then
        python=$candidate
        break
    fi
done
if [ -n "$python" ]; then
    "$python" "$here/plot_fig6.py" "$out/synth.csv" "$out/fig6"
else
    echo "synth: matplotlib not found (apt-get install python3-matplotlib); no plot" >&2
fi

ptxas_args=()
[ -x /usr/local/cuda/bin/ptxas ] && ptxas_args=(--ptxas /usr/local/cuda/bin/ptxas)
"$synth" random --seed 1 --seconds "$seconds" "${ptxas_args[@]}" --json "$out/synth_random.json" \
    --dump "$out/synth_random_failures" | tee "$out/synth_random.txt" || true

for f in synth.csv synth_random.json; do [ -f "$out/$f" ] || status=1; done
if grep -q ',"MISMATCH' "$out/synth.csv" || grep -q '"mismatches": [1-9]' "$out/synth_random.json"; then
    echo "synth: FAILED: a restructured kernel computed something else than the original" >&2
    status=1
fi
exit $status
