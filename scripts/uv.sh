#!/usr/bin/env bash
# Run the pinned uv, installing it into .tools/ on first use (nothing outside the
# checkout is touched). Every install of this project comes from uv.lock through it:
#   ./scripts/uv.sh sync --locked --extra test   what test.sh and .ci/run do
#   ./scripts/uv.sh lock                          after changing pyproject.toml's dependencies
#   ./scripts/uv.sh lock --upgrade                move to the newest versions the ranges allow
set -euo pipefail
cd "$(dirname "$0")/.."
UV_VERSION=0.13.9
tools=".tools/uv-$UV_VERSION"
if [ ! -x "$tools/bin/uv" ]; then
  python3 -m venv "$tools"
  "$tools/bin/pip" install --quiet --disable-pip-version-check "uv==$UV_VERSION"
fi
# This machine's Python (3.11+), never a downloaded interpreter.
export UV_PYTHON_DOWNLOADS=never UV_PYTHON="${UV_PYTHON:-python3}"
exec "$tools/bin/uv" "$@"
