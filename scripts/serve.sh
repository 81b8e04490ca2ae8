#!/usr/bin/env bash
# Run Perdure: install what requirements/main.txt pins into .venv (the first run creates
# it), then serve on 127.0.0.1:8000 with an embedded Postgres. Extra arguments go to
# `perdure serve` (e.g. --port 9000).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install.sh
exec .venv/bin/perdure serve "$@"
