"""The generated clients against a live `perdure serve`: each language's example program
(clients/*/examples/walkthrough.*) defines agents, sends with an Idempotency-Key, follows
a run's stream (resuming with Last-Event-ID), reads the transcript, decides an approval
and reads a 409's `code`, and prints `ok`. The TypeScript one is type-checked first.

`./scripts/clients.sh --check` (in CI) keeps the generated code in step with the spec.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.crash.harness import ROOT
from tests.serving import Server, serve_process

pytestmark = pytest.mark.timeout(300)

CLIENTS = ROOT / "clients"


@pytest.fixture
def server(database_url: str, tmp_path: Path) -> Iterator[Server]:
    with serve_process(database_url, tmp_path / "serve.log") as served:
        yield served


def run(command: list[str], cwd: Path, server: Server | None = None) -> str:
    env = dict(os.environ)
    if server is not None:
        env |= {"PERDURE_URL": server.url, "PERDURE_API_KEY": server.key}
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=240, check=False
    )
    assert done.returncode == 0, f"{' '.join(command)}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_python_client__drives_a_live_server(server: Server) -> None:
    out = run([sys.executable, "examples/walkthrough.py"], CLIENTS / "python", server)
    assert out.strip().splitlines()[-1] == "ok"


def test_typescript_client__type_checks_and_drives_a_live_server(server: Server) -> None:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are not installed: the TypeScript client is not run")
    package = CLIENTS / "typescript"
    if not (package / "node_modules").exists():
        run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], package)
    run(["npx", "--no-install", "tsc", "--noEmit"], package)
    # Compiled beside node_modules (so the imports resolve), into a directory of its own.
    out_dir = package / "dist" / f"test-{os.getpid()}"
    try:
        run(["npx", "--no-install", "tsc", "--outDir", str(out_dir)], package)
        out = run(["node", str(out_dir / "examples" / "walkthrough.js")], package, server)
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)
    assert out.strip().splitlines()[-1] == "ok"
