#!/usr/bin/env bash
# The whole test suite: the fast default selection, then the slow, server and browser tests.
# Usage: bash scripts/test.sh [pytest options]   (CI runs exactly this; see .ci/run)
# For the inner loop while coding, `.venv/bin/python -m pytest` runs only the fast selection.
set -uo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-.venv/bin/python}"

run() {
  "$PYTHON" -m pytest "$@"
  local status=$?
  if [ "$status" -eq 5 ]; then  # pytest collected nothing: never a pass
    echo "pytest collected no tests for: pytest $*" >&2
    return 1
  fi
  return "$status"
}

run "$@"
fast=$?
run -m "slow or server or browser" "$@"
rest=$?
if [ "$fast" -ne 0 ] || [ "$rest" -ne 0 ]; then
  echo "tests failed (fast selection: exit $fast; slow/server/browser: exit $rest)" >&2
  exit 1
fi
