#!/bin/sh
# Regenerates the checked-in PTX (examples/ptx/<name>.O3.ptx and .O0.ptx) from each kernel.cu,
# with the same flags as the build. NVCC overrides the compiler (default: nvcc on PATH, then
# /usr/local/cuda/bin/nvcc).
set -eu
cd "$(dirname "$0")"
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
mkdir -p ptx
for kernel in */kernel.cu; do
    name=${kernel%/kernel.cu}
    "$nvcc" -ptx -arch=sm_75 -O3 "$kernel" -o "ptx/$name.O3.ptx"
    "$nvcc" -ptx -arch=sm_75 -Xcicc -O0 "$kernel" -o "ptx/$name.O0.ptx"
    echo "ptx/$name.O3.ptx ptx/$name.O0.ptx"
done
