#!/usr/bin/env bash
# cmake/nvcc_cache.py: the same compile in another build directory is a hit (nvcc does not run,
# the output is the same), a changed header is a miss, its old content is a hit again, a failed
# compile stores nothing, and a compile of two sources is not cached.
#   nvcc_cache_test.sh NVCC_CACHE_PY NVCC
set -euo pipefail
launcher=$1
real_nvcc=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# nvcc, counting its runs.
cat >counting-nvcc <<EOT
#!/bin/sh
echo run >>"$work/runs"
exec "$real_nvcc" "\$@"
EOT
chmod +x counting-nvcc
: >runs
runs() { wc -l <"$work/runs"; }
fail() { echo "FAILED: $*" >&2; exit 1; }
compile() { "$launcher" "$work/cache" "$work/counting-nvcc" -ptx -arch=sm_75 "$@"; }

mkdir -p src one two
printf '#include "value.hpp"\n__global__ void k(int* p) { *p = VALUE; }\n' >src/k.cu
echo '#define VALUE 1234' >src/value.hpp

compile "$work/src/k.cu" -o "$work/one/k.ptx"
[ "$(runs)" -eq 1 ] || fail "the first compile did not run nvcc"
compile "$work/src/k.cu" -o "$work/two/k.ptx"
[ "$(runs)" -eq 1 ] || fail "the same compile in another directory ran nvcc again"
cmp -s one/k.ptx two/k.ptx || fail "the cached output differs from nvcc's"

echo '#define VALUE 5678' >src/value.hpp
compile "$work/src/k.cu" -o "$work/two/k.ptx"
[ "$(runs)" -eq 2 ] || fail "a changed header was a hit"
grep -q 5678 two/k.ptx || fail "the output after a changed header is stale"

echo '#define VALUE 1234' >src/value.hpp
compile "$work/src/k.cu" -o "$work/two/k.ptx"
[ "$(runs)" -eq 2 ] || fail "the header's earlier content was a miss"
grep -q 1234 two/k.ptx || fail "the output for the earlier header is wrong"

echo 'this is not CUDA' >src/bad.cu
if compile "$work/src/bad.cu" -o "$work/one/bad.ptx" 2>/dev/null; then fail "a failed compile succeeded"; fi
if compile "$work/src/bad.cu" -o "$work/one/bad.ptx" 2>/dev/null; then fail "a failed compile was cached"; fi
[ "$(runs)" -eq 4 ] || fail "a failed compile did not run nvcc each time"

cp src/k.cu src/k2.cu
sed -i 's/void k(/void k2(/' src/k2.cu
for _ in 1 2; do
    "$launcher" "$work/cache" "$work/counting-nvcc" -fatbin -arch=sm_75 "$work/src/k.cu" \
        "$work/src/k2.cu" -o "$work/one/k.fatbin" 2>/dev/null || true
done
[ "$(runs)" -eq 6 ] || fail "a compile of two sources was cached"
echo "nvcc cache: OK"
