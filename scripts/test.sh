#!/usr/bin/env bash
# Run the test suite: make .venv hold exactly what requirements/test.txt pins (the
# service's dependencies and the test extras), then run pytest against a real Postgres
# (embedded unless PERDURE_TEST_DATABASE_URL is set or a Docker engine answers). Extra
# arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install.sh test
exec .venv/bin/pytest "$@"
