#!/usr/bin/env bash
# PTX that cfrjit's own sources did not write: the kernels Thrust and CUB instantiate (radix sort,
# scan, reduce, transform), tensor-core and warp-collective code, grid-wide and cluster
# synchronisation, as nvcc writes them for compute_90 from the driver tests' library programs
# (tests/driver/apps). The front-end and pass benchmarks measure them beside ptxas. Without nvcc
# it writes nothing and says so, and the benchmarks go on without them.
set -euo pipefail
usage="usage: bench/frontend/library_ptx.sh OUT_DIR (writes OUT_DIR/<program>.ptx; NVCC overrides the compiler)"
case "${1:-}" in
-h | --help)
    echo "$usage"
    exit 0
    ;;
"")
    echo "$usage" >&2
    exit 2
    ;;
esac
out=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$nvcc" ]; then
    echo "library_ptx.sh: no nvcc at $nvcc, no library PTX written (install the CUDA toolkit or set NVCC)" >&2
    exit 0
fi
mkdir -p "$out"
for program in thrust_app cub_app tensor_app coop_app cluster_app; do
    echo "library_ptx.sh: $program.ptx" >&2
    "$nvcc" -ptx -arch=compute_90 "$root/tests/driver/apps/$program.cu" -o "$out/$program.ptx"
done
