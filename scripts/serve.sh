#!/usr/bin/env bash
# Run Perdure: make a virtual environment on first use, install, serve on 127.0.0.1:8000.
# Extra arguments go to `perdure serve` (e.g. --port 9000).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/perdure ]; then
  python3 -m venv .venv
  .venv/bin/pip install --quiet --upgrade pip
  .venv/bin/pip install --quiet -e .
fi
exec .venv/bin/perdure serve "$@"
