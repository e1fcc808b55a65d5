#!/usr/bin/env bash
# The one-command GPU check (docs/gpu-check.md): builds cfrjit (or takes --build DIR --no-build),
# runs every example and divergence-suite program natively and under libcfrjit.so with every
# pipeline and policy, and writes docs/results/gpu.md. `scripts/gpu-check.sh --help` for options.
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
command -v python3 >/dev/null || { echo "gpu-check: python3 is needed" >&2; exit 2; }
exec python3 "$here/gpu_check/main.py" "$@"
