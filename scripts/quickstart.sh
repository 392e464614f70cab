#!/usr/bin/env bash
# One command: set up, then run the main job (standard-v6 on the bundled local/smollm2 model).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/empathybench run "$@"
