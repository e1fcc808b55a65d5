#!/usr/bin/env bash
# Another interposer beside the shim: run_interposer.sh PROGRAM INTERPOSER ORDER
# ORDER: before (LD_PRELOAD=INTERPOSER:libcfrjit.so) or after (libcfrjit.so:INTERPOSER).
# The program's output must equal its output without either library, the interposer must report
# what it reports without the shim (the same dlopen or launch count line), and the shim's report
# must be written, with every launched kernel rewritten.
set -u
program=$1 interposer=$2 order=$3
shim=${CFRJIT_SHIM_LIB:?} emulator=${CFRJIT_EMULATOR_LIB:?}
work=$(mktemp -d /tmp/cfrjit-interposer.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAILED: $*"; for f in "$work"/*.err; do echo "--- $f"; cat "$f"; done; exit 1; }
export LD_LIBRARY_PATH=$emulator CFRJIT_CACHE=off
case $order in
before) preload=$interposer:$shim ;;
after) preload=$shim:$interposer ;;
*) echo "order must be before or after"; exit 2 ;;
esac
# What the environment already preloads (a sanitizer runtime in CI) stays, after these.
inherited=${LD_PRELOAD:+:$LD_PRELOAD}

"$program" >"$work/plain.out" 2>"$work/plain.err" || fail "program fails alone"
LD_PRELOAD=$interposer$inherited "$program" >"$work/alone.out" 2>"$work/alone.err" ||
    fail "program fails with the interposer alone"
LD_PRELOAD=$preload$inherited CFRJIT_REPORT=$work/report.json "$program" >"$work/both.out" \
    2>"$work/both.err" || fail "program fails with the interposer and the shim ($order)"
cmp -s "$work/plain.out" "$work/both.out" || fail "output differs"
want=$(grep -E "^(dlopen|launch)_wrapper:" "$work/alone.err")
got=$(grep -E "^(dlopen|launch)_wrapper:" "$work/both.err")
[[ -n $want ]] || fail "the interposer said nothing on its own"
# The shim's own dlopen of the driver is one more call through a dlopen wrapper.
if [[ $want == dlopen_wrapper:* ]]; then
    [[ $got == dlopen_wrapper:* ]] || fail "the interposer said nothing beside the shim"
else
    [[ $got == "$want" ]] || fail "the interposer saw '$got' beside the shim, '$want' alone"
fi
python3 - "$work/report.json" <<'PY' || fail "report check"
import json, sys
r = json.load(open(sys.argv[1]))
ks = [k for k in r["kernels"] if k["launches"] > 0]
assert ks, "no kernel launched"
for k in ks:
    assert k.get("rewritten"), f"{k['name']} not rewritten"
print("report:", ", ".join(f"{k['name']} x{k['launches']}" for k in ks))
PY
echo "$got"
echo "interposer: OK"
