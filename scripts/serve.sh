#!/usr/bin/env bash
# Run Perdure: install what uv.lock pins into .venv (the first run creates it), then serve
# on 127.0.0.1:8000 with an embedded Postgres. Extra arguments go to `perdure serve`
# (e.g. --port 9000).
set -euo pipefail
cd "$(dirname "$0")/.."
# --inexact: keep the test extras if test.sh installed them.
./scripts/uv.sh sync --locked --inexact --quiet
exec .venv/bin/perdure serve "$@"
