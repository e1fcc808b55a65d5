#!/usr/bin/env bash
# Classes and static growth of the examples under seed 000's six configurations.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
python3 "$here/examples.py" "${1:?usage: run.sh BUILD_DIR OUT_DIR}" "${2:?usage: run.sh BUILD_DIR OUT_DIR}"
