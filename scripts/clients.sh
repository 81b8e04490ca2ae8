#!/usr/bin/env bash
# The generated clients in clients/, from openapi/openapi.json: TypeScript types for
# openapi-fetch (openapi-typescript, pinned in clients/typescript/package-lock.json) and a
# Python package (openapi-python-client, pinned in requirements/test.txt). The SSE helpers
# and the example programs beside them are written by hand and left alone.
#   ./scripts/clients.sh           after changing the API (and openapi/openapi.json)
#   ./scripts/clients.sh --check   fail when clients/ is not what the spec generates (CI)
# Needs node and npm, and the test extras in $VENV (default .venv: ./scripts/install.sh test).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=$(realpath "${VENV:-.venv}")

generate() {  # in the tree at $1
  (cd "$1/clients/typescript" && npm ci --no-audit --no-fund --loglevel=error \
    && npx --no-install openapi-typescript ../../openapi/openapi.json -o src/schema.d.ts \
      --default-non-nullable false --silent)
  (cd "$1" && PATH="$venv/bin:$PATH" "$venv/bin/openapi-python-client" generate \
    --path openapi/openapi.json --meta none --output-path clients/python/perdure_client \
    --overwrite --config clients/python/generator.yaml >/dev/null)
}

if [ "${1:-}" = "--check" ]; then
  # Generate into a copy and compare: any difference means clients/ is stale.
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  mkdir "$scratch/clients"
  cp -r openapi "$scratch/"
  (cd clients && tar --exclude=node_modules -cf - .) | (cd "$scratch/clients" && tar -xf -)
  generate "$scratch"
  if ! diff -ru --exclude=node_modules --exclude=__pycache__ --exclude=.ruff_cache --exclude=dist clients "$scratch/clients" >&2; then
    echo "clients/ is stale: run ./scripts/clients.sh and commit it" >&2
    exit 1
  fi
  exit 0
fi
generate "$PWD"
