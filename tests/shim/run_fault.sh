#!/usr/bin/env bash
# Fault injection under the shim: run_fault.sh CFRJIT PROGRAM FAULT
# FAULT: corrupt-cache (a damaged entry on disk), unwritable-cache, cache-write (storing fails),
# pass, invariant (an internal invariant breaks while the passes run), driver-eager (the driver
# refuses the rewritten module at load), driver-lazy (at first use, under lazy loading),
# bad-config.
# The program must succeed with the output it has without the shim, and exactly one log line
# must say what went wrong.
set -u
cfrjit=$1 program=$2 fault=$3
work=$(mktemp -d /tmp/cfrjit-fault.XXXXXX)
trap 'rm -rf "$work"' EXIT
export CFRJIT_CACHE_DIR=$work/cache
emulator=${CFRJIT_EMULATOR_LIB:?}
fail() { echo "FAILED: $*"; cat "$work/shim.err"; exit 1; }

LD_LIBRARY_PATH=$emulator "$program" >"$work/plain.out" 2>/dev/null || fail "program fails without the shim"
expect=
case $fault in
corrupt-cache)
    "$cfrjit" run -- "$program" >/dev/null 2>&1 || fail "first run"
    for f in "$work"/cache/*.cfrjit; do
        python3 -c 'import sys; f = open(sys.argv[1], "r+b"); f.seek(60); f.write(b"garbage")' "$f"
    done
    expect="damaged cache entry" ;;
unwritable-cache) export CFRJIT_CACHE_DIR=/dev/null/cfrjit expect="cache disabled" ;;
cache-write) export CFRJIT_TEST_FAULT=cache expect="cache disabled: cannot write" ;;
pass) export CFRJIT_TEST_FAULT=pass expect="pipeline .* failed" ;;
invariant) export CFRJIT_TEST_FAULT=invariant
    expect="pipeline .* failed: internal error at runtime/compile.cpp:[0-9]+: no invariant is broken" ;;
driver-eager) export CFRJIT_TEST_FAULT=driver CUDA_MODULE_LOADING=EAGER
    expect="driver refused the rewritten module at load" ;;
driver-lazy) export CFRJIT_TEST_FAULT=driver CUDA_MODULE_LOADING=LAZY
    expect="driver refused the rewritten module at first use" ;;
bad-config) export CFRJIT_LOG=loud expect="CFRJIT_LOG=loud" ;;
*) echo "unknown fault $fault"; exit 2 ;;
esac
if [[ $fault == bad-config ]]; then
    LD_PRELOAD=${CFRJIT_SHIM_LIB:?}${LD_PRELOAD:+:$LD_PRELOAD} LD_LIBRARY_PATH=$emulator \
        "$program" >"$work/shim.out" 2>"$work/shim.err" || fail "program fails under the shim"
else
    "$cfrjit" run -- "$program" >"$work/shim.out" 2>"$work/shim.err" || fail "program fails under the shim"
fi
cmp -s "$work/plain.out" "$work/shim.out" || fail "output differs"
lines=$(grep -cE "^cfrjit (warning|error):" "$work/shim.err")
[[ $lines == 1 ]] || fail "$lines log lines, expected 1"
grep -E "^cfrjit (warning|error):" "$work/shim.err" | grep -qE "$expect" || fail "log line does not say '$expect'"
grep -E "^cfrjit (warning|error):" "$work/shim.err"
echo "fault: OK"
