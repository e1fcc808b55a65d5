#!/usr/bin/env bash
# The divergence map through the shim against the emulator's own count, on the emulated driver:
#   run_divergence_map.sh CFRJIT [--default-pipeline] [--present] [--source DIR] -- PROGRAM [ARGS...]
# The program runs alone with CFRJIT_EMU_STATS (the emulator counts every branch of the module the
# program loaded), then under `cfrjit run --divergence-map` with the empty pipeline (or, with
# --default-pipeline, the default one before the map), then once more from the warm cache. Every
# output must equal the program's alone, no run may log a warning, the report's divergence_map
# must equal the emulator's branch by branch (empty pipeline) or hold counts (default pipeline, or
# --present where the emulator's count cannot be compared), and `cfrjit divmap` must read it
# (annotating the sources in DIR when --source is given).
set -u
cfrjit=$1
shift
passes=(--passes "") exact=--exact divmap_args=() annotated=()
while [[ $# -gt 0 && $1 != -- ]]; do
    case $1 in
    --default-pipeline) passes=() exact= ; shift ;;
    --present) exact= ; shift ;;
    --source) divmap_args=(--source "$2"); annotated=(--annotated); shift 2 ;;
    *) echo "run_divergence_map.sh: unknown option $1"; exit 2 ;;
    esac
done
shift
[[ $# -gt 0 ]] || { echo "run_divergence_map.sh: no program"; exit 2; }
emulator=${CFRJIT_EMULATOR_LIB:?}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/cfrjit-divmap.XXXXXX)
trap 'rm -rf "$work"' EXIT
export CFRJIT_CACHE_DIR=$work/cache
fail() { echo "FAILED: $*"; for f in "$work"/*.err; do [[ -s $f ]] && { echo "--- $f"; tail -40 "$f"; }; done; exit 1; }

CFRJIT_EMU_STATS=$work/emu.json LD_LIBRARY_PATH=$emulator "$@" >"$work/alone.out" \
    2>"$work/alone.err" || fail "program fails alone"
[[ -s $work/emu.json ]] || fail "the emulated driver wrote no statistics"
for run in cold warm; do
    "$cfrjit" run --divergence-map "${passes[@]}" --report "$work/report.json" -- "$@" \
        >"$work/shim.out" 2>"$work/shim.err" || fail "program fails under the shim ($run)"
    cmp -s "$work/alone.out" "$work/shim.out" || {
        diff "$work/alone.out" "$work/shim.out" | head -20
        fail "output differs under the shim ($run)"
    }
    if grep -E "^cfrjit (warning|error):" "$work/shim.err"; then fail "log lines ($run)"; fi
    grep -q "Divergence map" "$work/shim.err" || fail "no divergence map table ($run)"
    "$cfrjit" divmap "${divmap_args[@]}" "$work/report.json" >"$work/divmap.txt" \
        2>"$work/divmap.err" || fail "cfrjit divmap fails ($run)"
    python3 "$here/check_divergence_map.py" "$work/report.json" "$work/emu.json" $exact \
        --divmap "$work/divmap.txt" "${annotated[@]}" >"$work/check.txt" ||
        { cat "$work/check.txt"; fail "divergence map check ($run)"; }
    echo "$run: $(tail -1 "$work/check.txt")"
done
sed -n '/Divergence map/,/^ modules/p' "$work/shim.err" | head -30
echo "divergence map: OK"
