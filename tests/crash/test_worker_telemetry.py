"""A `perdure worker` process as deployed: JSON log lines (its stderr is not a terminal)
that name the run they are about, no secret in any of them, and its metrics on
PERDURE_METRICS_PORT."""

from __future__ import annotations

import json
import signal
import socket
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import wait_status
from tests.crash.harness import workers
from tests.fake_http import fake_server, http_server
from tests.integration.test_metrics import parse, value
from tests.providers.fake_servers import openai_error, openai_reply
from tests.support import define, queue

pytestmark = pytest.mark.timeout(90)

MODEL_KEY = "sk-test-MODEL-SECRET-4f1c"
TOOL_KEY = "tool-HEADER-SECRET-9a7e"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def log_lines(text: str) -> list[dict[str, Any]]:
    """Every line the worker logged, as JSON; stdout's own lines (`perdure: …`) aside."""
    return [json.loads(line) for line in text.splitlines() if not line.startswith("perdure: ")]


async def test_worker_logs_json_naming_the_run__no_secret__metrics_on_its_port(
    api: httpx.AsyncClient,
    database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The API checks them at definition; the worker (inheriting them) sends them.
    monkeypatch.setenv("TEST_OPENAI_API_KEY", MODEL_KEY)
    monkeypatch.setenv("TEST_TOOL_API_KEY", TOOL_KEY)
    port = free_port()
    with (
        fake_server("/v1/chat/completions") as model,
        http_server({"/t": (200, b'{"ok": true}', 0)}) as (base, seen),
        workers(tmp_path, database_url, tmp_path / "model.log") as start,
    ):
        # A retryable error first, so the engine logs about the run; then a call, then done.
        model.push(
            openai_error(500, "overloaded"),
            openai_reply(
                calls=[
                    {"id": "c1", "type": "function", "function": {"name": "t", "arguments": "{}"}}
                ]
            ),
            openai_reply("done"),
        )
        tool = {
            "name": "t",
            "input_schema": {"type": "object"},
            "executor": {
                "type": "http",
                "url": f"{base}/t",
                "headers": {"Authorization": {"env": "TEST_TOOL_API_KEY"}},
            },
        }
        model_spec = {
            "provider": "openai",
            "name": "gpt-test",
            "base_url": f"{model.url}/v1",
            "api_key_env": "TEST_OPENAI_API_KEY",
        }
        await define(api, {"id": "w", "model": model_spec, "tools": [tool]})
        run_id = await queue(api, "w-1", "w")
        worker = start(PERDURE_METRICS_PORT=str(port))
        done = await wait_status(api, run_id, {"finished"}, timeout=30)
        async with httpx.AsyncClient() as client:
            scraped = parse((await client.get(f"http://127.0.0.1:{port}/metrics")).text)
        worker.signal(signal.SIGTERM)
        assert worker.wait() == 0
        log = worker.log()

    assert done["output"] == "done"
    # The secrets were used...
    assert all(r.headers["authorization"] == f"Bearer {MODEL_KEY}" for r in model.seen())
    assert seen[0]["headers"]["Authorization"] == TOOL_KEY
    # ...and appear in no line.
    assert MODEL_KEY not in log
    assert TOOL_KEY not in log

    lines = log_lines(log)
    assert all({"time", "level", "logger", "message"} <= set(line) for line in lines)
    about_run = [line for line in lines if run_id in line["message"]]
    assert about_run, log  # the retry, at least
    assert any("model error (server_error)" in line["message"] for line in about_run)
    # The lines written while the run was driven (the worker's and the HTTP client's own)
    # all name it, with the lease it was driven under and the worker.
    driven = [line for line in lines if line.get("run_id") == run_id]
    assert {line["logger"] for line in driven} >= {"perdure.engine", "httpx"}
    for line in [*about_run, *driven]:
        assert line["run_id"] == run_id
        assert line["session_id"] == "w-1"
        assert isinstance(line["lease_token"], int)
        assert line["lease_token"] >= 1
        assert line["worker"].count(":") == 2  # host:pid:nonce
    # Lines about no run carry no run fields.
    assert not any("run_id" in line for line in lines if "started" in line["message"])

    # The worker's own counters, on its own port.
    assert value(scraped, "perdure_claims_total") == 2  # the retry queued it again
    assert (
        value(scraped, "perdure_model_call_errors_total", provider="openai", code="server_error")
        == 1
    )
    assert value(scraped, "perdure_tool_call_seconds_count", executor="http", outcome="ok") == 1
