#!/usr/bin/env bash
# Make .venv hold what a lock pins, then this project (editable, no dependencies of its
# own: the lock has them all). `install.sh test` installs exactly requirements/test.txt
# (what test.sh and .ci/run use); `install.sh` adds requirements/main.txt to whatever
# .venv holds (what serve.sh uses, so it keeps the test extras of an earlier test run).
set -euo pipefail
cd "$(dirname "$0")/.."
uv=./scripts/uv.sh
[ -x .venv/bin/python ] || "$uv" venv --quiet .venv
export VIRTUAL_ENV="$PWD/.venv"
if [ "${1:-main}" = "test" ]; then
  "$uv" pip sync --quiet --require-hashes requirements/test.txt
else
  "$uv" pip install --quiet --require-hashes -r requirements/main.txt
fi
"$uv" pip install --quiet --no-deps --build-constraints requirements/build.txt -e .
