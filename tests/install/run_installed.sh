#!/usr/bin/env bash
# The build installed into a temporary prefix, and an example under the installed cfrjit:
#   run_installed.sh CMAKE BUILD EXAMPLE
# Checks the installed layout; that no installed binary searches the build tree or misses a
# library; that `cfrjit locate`, run from outside the build tree, names the installed shim and
# emulated driver; and that EXAMPLE under `<prefix>/bin/cfrjit run` prints what it prints alone,
# has its kernels rewritten (the report) and was given the installed libcfrjit.so and libcuda.so.1,
# not the build tree's (the loader's own log, LD_DEBUG=libs). Then cfr-run, cfr-opt and cfr-synth
# from the prefix.
set -u
cmake=$1 build=$2 example=$3
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
prefix=$(cd "$(mktemp -d /tmp/cfrjit-install.XXXXXX)" && pwd -P)
trap 'rm -rf "$prefix"' EXIT
work=$prefix/work
mkdir "$work"
fail() {
    echo "FAILED: $*"
    for f in "$work"/*.err "$work"/*.out; do [[ -s $f ]] && { echo "--- $f"; tail -30 "$f"; }; done
    exit 1
}

"$cmake" --install "$build" --prefix "$prefix" >"$work/install.out" 2>&1 || fail "cmake --install"
for f in bin/cfrjit bin/cfr-opt bin/cfr-run bin/cfr-synth lib/libcfrjit.so lib/cfrjit/libcuda.so.1 \
    share/doc/cfrjit/README.md share/doc/cfrjit/docs/building.md \
    share/doc/cfrjit/docs/results/reliability.md; do
    [[ -f $prefix/$f ]] || fail "$f is not installed"
done
echo "installed: $(cd "$prefix" && find bin lib share -type f | wc -l) files in $prefix"
for f in "$prefix"/bin/* "$prefix"/lib/libcfrjit.so "$prefix"/lib/cfrjit/libcuda.so.1; do
    if readelf -d "$f" | grep -E 'R(UN)?PATH' | grep -F "$build"; then
        fail "$f searches the build tree"
    fi
    if ldd "$f" | grep 'not found'; then fail "$f: a library is missing"; fi
done

# From outside the build tree, with nothing in the environment that names a library.
cd "$work" || fail "cd $work"
unset CFRJIT_SHIM_LIB CFRJIT_EMULATOR_LIB LD_LIBRARY_PATH
"$prefix/bin/cfrjit" locate >locate.out 2>&1 || fail "cfrjit locate"
cat locate.out
grep -qxF "shim: $prefix/lib/libcfrjit.so (installed)" locate.out ||
    fail "cfrjit locate does not name the installed shim"
grep -qxF "emulated driver: $prefix/lib/cfrjit/libcuda.so.1 (installed)" locate.out ||
    fail "cfrjit locate does not name the installed emulated driver"

LD_LIBRARY_PATH=$prefix/lib/cfrjit "$example" >alone.out 2>alone.err || fail "example fails alone"
LD_DEBUG=libs "$prefix/bin/cfrjit" run --emulator --verbose --cache-dir "$work/cache" \
    --report "$work/report.json" -- "$example" >shim.out 2>shim.err ||
    fail "example fails under the installed cfrjit run"
cmp -s alone.out shim.out || fail "output differs under the installed cfrjit run"
if grep -E "^cfrjit (warning|error):" shim.err; then fail "log lines"; fi
grep -F "cfrjit: shim $prefix/lib/libcfrjit.so (installed)" shim.err ||
    fail "cfrjit run does not say it uses the installed shim"
for lib in lib/libcfrjit.so lib/cfrjit/libcuda.so.1; do
    grep -qF "calling init: $prefix/$lib" shim.err || fail "the example did not load $prefix/$lib"
done
if grep -F "calling init: $build/" shim.err; then fail "the example loaded from the build tree"; fi
python3 "$source_dir/tests/shim/check_report.py" report.json --kernels-rewritten ||
    fail "report check"

LD_DEBUG=libs "$prefix/bin/cfr-run" -q -- "$example" >cfr-run.out 2>cfr-run.err ||
    fail "example fails under the installed cfr-run"
cmp -s alone.out cfr-run.out || fail "output differs under the installed cfr-run"
grep -qF "calling init: $prefix/lib/cfrjit/libcuda.so.1" cfr-run.err ||
    fail "cfr-run did not give the example the installed driver"
"$prefix/bin/cfr-opt" -i "$source_dir/examples/ptx/short_circuit.O0.ptx" --classify \
    >cfr-opt.out 2>cfr-opt.err || fail "the installed cfr-opt"
"$prefix/bin/cfr-synth" --help >cfr-synth.out 2>cfr-synth.err || fail "the installed cfr-synth"
echo "install: OK"
