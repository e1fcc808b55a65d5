#!/usr/bin/env bash
# The .deb that cpack makes from a build's install rules:
#   check_deb.sh CPACK BUILD
# Its control fields (name, version, maintainer, description, dependencies),
# its files (the installed layout under /usr), and cfrjit locate from the unpacked package naming
# the package's own shim and emulated driver.
set -u
cpack=$1 build=$2
out=$(cd "$(mktemp -d /tmp/cfrjit-deb.XXXXXX)" && pwd -P)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAILED: $*"; [[ -s $out/cpack.log ]] && tail -30 "$out/cpack.log"; exit 1; }

(cd "$out" && "$cpack" --config "$build/CPackConfig.cmake" -G DEB -B "$out" >cpack.log 2>&1) ||
    fail "cpack -G DEB"
debs=("$out"/cfrjit_*.deb)
deb=${debs[0]}
[[ -f $deb ]] || fail "no cfrjit_*.deb"
echo "$(basename "$deb"): $(du -h "$deb" | cut -f1)"
dpkg-deb -f "$deb" Package Version Architecture Maintainer Depends || fail "dpkg-deb -f"
[[ $(dpkg-deb -f "$deb" Package) == cfrjit ]] || fail "package name"
dpkg-deb -f "$deb" Depends | grep -q "libc6" || fail "no dependency on libc6"
[[ -n $(dpkg-deb -f "$deb" Maintainer) ]] || fail "no maintainer"
[[ -n $(dpkg-deb -f "$deb" Description) ]] || fail "no description"
dpkg-deb -c "$deb" >"$out/files.txt" || fail "dpkg-deb -c"
for f in usr/bin/cfrjit usr/bin/cfr-opt usr/bin/cfr-run usr/bin/cfr-synth usr/lib/libcfrjit.so \
    usr/lib/cfrjit/libcuda.so.1 usr/share/doc/cfrjit/README.md; do
    grep -q " \./$f$" "$out/files.txt" || fail "$f is not in the package"
done
dpkg-deb -x "$deb" "$out/root" || fail "dpkg-deb -x"
env -u CFRJIT_SHIM_LIB -u CFRJIT_EMULATOR_LIB "$out/root/usr/bin/cfrjit" locate >"$out/locate.txt"
cat "$out/locate.txt"
grep -qxF "shim: $out/root/usr/lib/libcfrjit.so (installed)" "$out/locate.txt" ||
    fail "the unpacked cfrjit does not find its shim"
grep -qxF "emulated driver: $out/root/usr/lib/cfrjit/libcuda.so.1 (installed)" "$out/locate.txt" ||
    fail "the unpacked cfrjit does not find its emulated driver"
echo "deb: OK"
