#!/usr/bin/env bash
# Run the pinned uv, installing it into .tools/ on first use (nothing outside the
# checkout is touched). install.sh and lock.sh reach uv through here.
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
