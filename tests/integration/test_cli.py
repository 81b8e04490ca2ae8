"""`perdure` as a user runs it: real processes, real signals, one clear line per mistake."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from app.embedded_pg import EmbeddedPostgres, free_port
from tests.crash.harness import ROOT

pytestmark = pytest.mark.timeout(120)


def perdure(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    base = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    return subprocess.Popen(
        [sys.executable, "-m", "app.cli", *args],
        cwd=ROOT,
        env={**base, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def wait_ready(port: int, process: subprocess.Popen[str], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()[0]
        try:
            if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError("the server did not become ready")


def test_serve__embedded_postgres_survives_a_restart_and_stops_with_us(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    env = {"PERDURE_DATA_DIR": str(data_dir)}
    port = free_port()
    server = perdure("serve", "--port", str(port), env=env)
    try:
        wait_ready(port, server)
        agent = {"id": "kept", "model": {"provider": "scripted", "script": [{"text": "hi"}]}}
        created = httpx.post(f"http://127.0.0.1:{port}/v1/agents", json=agent, timeout=10)
        assert created.status_code == 201
        reply = httpx.post(
            f"http://127.0.0.1:{port}/v1/sessions/s/runs?wait=10",
            json={"agent_id": "kept", "input": "hello"},
            timeout=20,
        )
        assert reply.json()["output"] == "hi"  # the in-process worker pool ran it
    finally:
        server.send_signal(signal.SIGTERM)
        output = server.communicate(timeout=60)[0]
    assert server.returncode == 0, output
    assert str(data_dir / "pg") in output
    assert f"http://127.0.0.1:{port}" in output
    assert not EmbeddedPostgres(data_dir).is_running(), "SIGTERM must stop our Postgres"

    server = perdure("serve", "--port", str(port), env=env)
    try:
        wait_ready(port, server)
        again = httpx.get(f"http://127.0.0.1:{port}/v1/agents/kept", timeout=10)
        assert again.status_code == 200, "a second start must find the data again"
    finally:
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=60)
    assert server.returncode == 0


def one_line_error(process: subprocess.Popen[str]) -> str:
    output = process.communicate(timeout=60)[0]
    assert process.returncode == 2, output
    errors = [line for line in output.splitlines() if line.startswith("perdure: error:")]
    assert len(errors) == 1, output
    assert "Traceback" not in output
    return errors[0]


def test_serve__unreachable_database_url() -> None:
    line = one_line_error(perdure("serve", env={"DATABASE_URL": "postgresql://u@127.0.0.1:1/x"}))
    assert "cannot reach the database" in line
    assert "DATABASE_URL" in line


def test_serve__unwritable_data_dir(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    line = one_line_error(perdure("serve", env={"PERDURE_DATA_DIR": str(blocker / "data")}))
    assert "cannot write the data folder" in line


def test_serve__port_in_use(pg_admin_url: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = one_line_error(
            perdure("serve", "--port", str(port), env={"DATABASE_URL": pg_admin_url})
        )
    assert f"cannot listen on 127.0.0.1:{port}" in line


def test_worker__without_database_url() -> None:
    line = one_line_error(perdure("worker"))
    assert "needs DATABASE_URL" in line


def test_settings__bad_lease_configuration() -> None:
    line = one_line_error(
        perdure(
            "worker",
            env={
                "DATABASE_URL": "postgresql://x@h/d",
                "PERDURE_LEASE_TTL_S": "5",
                "PERDURE_HEARTBEAT_S": "10",
            },
        )
    )
    assert "PERDURE_LEASE_TTL_S" in line


@pytest.mark.parametrize("command", ["worker", "serve"])
@pytest.mark.parametrize(
    ("lease", "named"),
    [
        pytest.param(
            {"PERDURE_LEASE_TTL_S": "3", "PERDURE_HEARTBEAT_S": "1", "PERDURE_LEASE_MARGIN_S": "3"},
            ("PERDURE_LEASE_TTL_S", "PERDURE_HEARTBEAT_S", "PERDURE_LEASE_MARGIN_S"),
            id="no-lease-left-for-a-tool-call",
        ),
        pytest.param(
            {"PERDURE_LEASE_TTL_S": "5", "PERDURE_HEARTBEAT_S": "3", "PERDURE_LEASE_MARGIN_S": "0"},
            ("PERDURE_LEASE_TTL_S", "PERDURE_HEARTBEAT_S"),
            id="one-late-heartbeat-loses-the-lease",
        ),
    ],
)
def test_settings__lease_settings_no_run_progresses_under_are_refused_at_start(
    command: str, lease: dict[str, str], named: tuple[str, ...]
) -> None:
    """Refused before anything starts (an unreachable database would be the next error, so
    the configuration must be checked first), in one line naming the variables."""
    args = ["worker", "--migrate"] if command == "worker" else ["serve", "--port", str(free_port())]
    line = one_line_error(
        perdure(*args, env={"DATABASE_URL": "postgresql://u@127.0.0.1:1/x", **lease})
    )
    assert "invalid configuration" in line
    for name in named:
        assert name in line, line


def test_openapi__prints_the_contract() -> None:
    process = perdure("openapi")
    output = process.communicate(timeout=60)[0]
    assert process.returncode == 0
    assert (ROOT / "openapi" / "openapi.json").read_text() == output
