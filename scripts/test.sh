#!/usr/bin/env bash
# Run the test suite: make .venv hold exactly what uv.lock pins, with the test extras,
# then run pytest against a real Postgres (embedded unless PERDURE_TEST_DATABASE_URL is
# set or a Docker engine answers). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
# --locked: fail, rather than re-resolve, when uv.lock and pyproject.toml disagree.
./scripts/uv.sh sync --locked --extra test --quiet
exec .venv/bin/pytest "$@"
