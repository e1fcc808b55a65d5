#!/usr/bin/env bash
# The HTML report of an example run on the emulated driver:
#   run_html.sh CFRJIT [--source DIR] [--browser SCREENSHOT] -- RUN_OPTIONS... -- PROGRAM [ARGS...]
# runs PROGRAM under `cfrjit run --html PAGE --report REPORT RUN_OPTIONS...` (its output must be
# the program's alone), checks the page against the report (check_html.py: well-formed, nothing
# loaded from elsewhere, every kernel with the report's figures, one CFG figure per changed kernel
# where Graphviz's dot is installed and a word on how to get them where it is not; with --source,
# CUDA source lines with counts), then writes the page again with `cfrjit report --dump` into a
# directory without dot and checks that one too. With --browser, headless Chromium then loads the
# page from disk (browser_check.py: no console message, no request outside the file) and takes
# the screenshot.
set -u
cfrjit=$1
shift
source_args=() check_args=() screenshot=
while [[ $# -gt 0 && $1 != -- ]]; do
    case $1 in
    --source) source_args=(--source "$2"); check_args+=(--source); shift 2 ;;
    --browser) screenshot=$2; shift 2 ;;
    *) echo "run_html.sh: unknown option $1"; exit 2 ;;
    esac
done
shift
run_options=()
while [[ $# -gt 0 && $1 != -- ]]; do run_options+=("$1"); shift; done
shift
[[ $# -gt 0 ]] || { echo "run_html.sh: no program"; exit 2; }
emulator=${CFRJIT_EMULATOR_LIB:?}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/cfrjit-html.XXXXXX)
trap 'rm -rf "$work"' EXIT
export CFRJIT_CACHE_DIR=$work/cache
fail() { echo "FAILED: $*"; for f in "$work"/*.err; do [[ -s $f ]] && { echo "--- $f"; tail -40 "$f"; }; done; exit 1; }

LD_LIBRARY_PATH=$emulator "$@" >"$work/alone.out" 2>"$work/alone.err" || fail "program fails alone"
"$cfrjit" run --html "$work/page.html" --report "$work/report.json" --dump-dir "$work/dump" \
    "${source_args[@]}" "${run_options[@]}" -- "$@" >"$work/shim.out" 2>"$work/shim.err" ||
    fail "program fails under cfrjit run --html"
cmp -s "$work/alone.out" "$work/shim.out" || fail "output differs under cfrjit run --html"
grep -q "cfrjit: HTML report" "$work/shim.err" || fail "cfrjit run --html wrote no page"
cfgs=noted
command -v dot >/dev/null && cfgs=drawn
python3 "$here/check_html.py" "$work/page.html" "$work/report.json" --cfgs $cfgs \
    "${check_args[@]}" || fail "page of cfrjit run --html ($cfgs)"
# Without dot, the page says how to get the drawings.
CFRJIT_DOT=/nonexistent/dot "$cfrjit" report "$work/report.json" "${source_args[@]}" \
    --dump "$work/dump" -o "$work/nodot.html" 2>"$work/report.err" || fail "cfrjit report fails"
python3 "$here/check_html.py" "$work/nodot.html" "$work/report.json" --cfgs noted \
    "${check_args[@]}" >/dev/null || fail "page of cfrjit report without dot"
if python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(not any(
        k.get("rewritten") and k.get("selected") and k.get("changed_by") for k in r["kernels"]))'         "$work/report.json"; then
    grep -q "apt-get install graphviz" "$work/nodot.html" || fail "no word on installing Graphviz"
fi
if [[ -n $screenshot ]]; then
    mkdir -p "$(dirname "$screenshot")"
    python3 "$here/browser_check.py" "$work/page.html" "$screenshot" || fail "the page in Chromium"
fi
echo "html report: OK"
