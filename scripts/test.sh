#!/usr/bin/env bash
# Run the test suite: make a virtual environment on first use, install with the test
# extras, run pytest against a real Postgres (embedded unless PERDURE_TEST_DATABASE_URL
# is set or a Docker engine answers). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/pytest ]; then
  python3 -m venv .venv
  .venv/bin/pip install --quiet --upgrade pip
fi
.venv/bin/pip install --quiet -e '.[test]'
exec .venv/bin/pytest "$@"
