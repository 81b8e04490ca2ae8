#!/usr/bin/env bash
# The locks: requirements/*.txt pin every package (with its hashes) that the project,
# its test extras and its build backend need, resolved from pyproject.toml.
#   ./scripts/lock.sh              after changing a dependency: pins what is new, keeps the rest
#   ./scripts/lock.sh --upgrade    the newest versions pyproject.toml's ranges allow
#   ./scripts/lock.sh --check      fail when the locks and pyproject.toml disagree (CI runs it)
set -euo pipefail
cd "$(dirname "$0")/.."
uv="$PWD/scripts/uv.sh"

compile() {
  "$uv" pip compile --quiet --universal --python-version 3.11 --generate-hashes \
    --custom-compile-command ./scripts/lock.sh "$@"
}

# Write the three locks under ./requirements, preferring the versions already pinned there.
write() {
  compile pyproject.toml -o requirements/main.txt "$@"
  # Constrained by the main lock: the service and its tests run the same versions.
  compile pyproject.toml --extra test -c requirements/main.txt -o requirements/test.txt "$@"
  python3 -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"], sep="\n")' \
    | compile - -o requirements/build.txt "$@"
}

if [ "${1:-}" = "--check" ]; then
  # Lock a copy and compare: any difference means pyproject.toml changed since the lock.
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  cp -r pyproject.toml requirements "$scratch/"
  (cd "$scratch" && write)
  if ! diff -ru requirements "$scratch/requirements" >&2; then
    echo "requirements/ does not match pyproject.toml: run ./scripts/lock.sh and commit both" >&2
    exit 1
  fi
  exit 0
fi
write "$@"
