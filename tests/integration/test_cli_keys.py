"""The trust boundary as an operator meets it: `perdure keys`, open mode, and where the
server may listen. Real processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from app.embedded_pg import free_port
from tests.crash.harness import ROOT
from tests.integration.test_cli import one_line_error, perdure, wait_ready

pytestmark = pytest.mark.timeout(180)


def run_cli(*args: str, env: dict[str, str]) -> str:
    process = perdure(*args, env=env)
    output = process.communicate(timeout=120)[0]
    assert process.returncode == 0, output
    return output


def create_key(env: dict[str, str], *args: str) -> str:
    """`perdure keys create`, as a script uses it: the key is the last line of stdout
    (whatever the command says on stderr, such as starting the embedded Postgres)."""
    base = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "keys", "create", *args],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    key = done.stdout.strip().splitlines()[-1]
    assert key.startswith("pdk_"), done.stdout
    return key


def stop(server: subprocess.Popen[str]) -> str:
    server.send_signal(signal.SIGTERM)
    return server.communicate(timeout=60)[0]


def test_keys__made_beside_a_running_embedded_server_end_open_mode(tmp_path: Path) -> None:
    env = {"PERDURE_DATA_DIR": str(tmp_path / "data")}
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = perdure("serve", "--port", str(port), "--workers", "0", env=env)
    try:
        wait_ready(port, server)
        assert httpx.get(f"{base}/v1/runs", timeout=10).status_code == 200  # open mode

        made = run_cli("keys", "create", "--name", "ops", "--scopes", "runs:read,admin", env=env)
        key = made.strip().splitlines()[-1]  # the key is the last line, for scripts
        assert key.startswith("pdk_")
        assert len(key) >= 47
        prefix = key[:12]

        refused = httpx.get(f"{base}/v1/runs", timeout=10)
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"].startswith("Bearer")
        authed = {"Authorization": f"Bearer {key}"}
        assert httpx.get(f"{base}/v1/runs", headers=authed, timeout=10).status_code == 200

        listed = run_cli("keys", "list", env=env)
        assert prefix in listed
        assert key not in listed
        assert "live" in listed

        run_cli("keys", "revoke", prefix, env=env)
        assert httpx.get(f"{base}/v1/runs", headers=authed, timeout=10).status_code == 401
        assert "revoked" in run_cli("keys", "list", env=env)
    finally:
        output = stop(server)
    assert "serving OPEN" in output


def test_serve__a_loopback_server_refuses_other_host_names(tmp_path: Path) -> None:
    """DNS rebinding: a page on evil.example resolving to 127.0.0.1 must not drive us."""
    env = {"PERDURE_DATA_DIR": str(tmp_path / "data")}
    port = free_port()
    server = perdure("serve", "--port", str(port), "--workers", "0", env=env)
    try:
        wait_ready(port, server)
        url = f"http://127.0.0.1:{port}/v1/runs"
        assert httpx.get(url, headers={"Host": f"evil.example:{port}"}).status_code == 400
        assert httpx.get(url, headers={"Host": f"localhost:{port}"}).status_code == 200
    finally:
        stop(server)


def test_serve__beyond_loopback_with_no_key_refuses_to_start(database_url: str) -> None:
    port = free_port()
    line = one_line_error(
        perdure(
            "serve", "--host", "0.0.0.0", "--port", str(port), env={"DATABASE_URL": database_url}
        )
    )
    assert "refusing to serve on 0.0.0.0 with no API key" in line


def test_serve__beyond_loopback_with_a_key_never_runs_open(database_url: str) -> None:
    env = {"DATABASE_URL": database_url}
    key = run_cli("keys", "create", "--name", "a", "--scopes", "runs:read", env=env).split()[-1]
    port = free_port()
    server = perdure("serve", "--host", "0.0.0.0", "--port", str(port), "--workers", "0", env=env)
    try:
        wait_ready(port, server)
        url = f"http://127.0.0.1:{port}/v1/runs"
        assert httpx.get(url, timeout=10).status_code == 401
        assert httpx.get(url, headers={"Authorization": f"Bearer {key}"}).status_code == 200
    finally:
        stop(server)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--name", "x", "--scopes", "runs:read,root"), "unknown scope"),
        (("--name", "x", "--scopes", ","), "names none"),
        (("--name", "x", "--scopes", "admin", "--tenant", "Acme Corp"), "--tenant must match"),
    ],
)
def test_keys__bad_arguments_are_one_line(
    database_url: str, args: tuple[str, ...], says: str
) -> None:
    line = one_line_error(perdure("keys", "create", *args, env={"DATABASE_URL": database_url}))
    assert says in line


def test_serve__the_scripted_model_is_off_unless_the_server_starts_open(tmp_path: Path) -> None:
    """It lets whoever defines an agent call any tool with any arguments: fine for the
    walk-through on an open laptop server, not for a server with tenants."""
    env = {"PERDURE_DATA_DIR": str(tmp_path / "data")}
    key = create_key(env, "--name", "a", "--scopes", "agents:write")
    port = free_port()
    server = perdure("serve", "--port", str(port), "--workers", "0", env=env)
    try:
        wait_ready(port, server)
        scripted = {"id": "s", "model": {"provider": "scripted", "script": [{"text": "hi"}]}}
        refused = httpx.post(
            f"http://127.0.0.1:{port}/v1/agents",
            json=scripted,
            headers={"Authorization": f"Bearer {key}"},
            timeout=10,
        )
        assert refused.status_code == 422, refused.text
        assert "scripted" in refused.text
    finally:
        output = stop(server)
    assert "serving OPEN" not in output
