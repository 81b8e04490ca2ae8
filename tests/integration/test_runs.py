"""The run loop over HTTP, with an in-process worker pool, against a real Postgres."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from tests import pg
from tests.agents import ADD_SCHEMA, agent, calls, python_tool
from tests.conftest import wait_status
from tests.support import define, send, transcript
from tests.tools import ConcurrencyProbe

ADD = python_tool("add", "add", ADD_SCHEMA)
DONE = {"statuses": {"finished", "failed", "cancelled"}}


# -- the walk-through --------------------------------------------------------------------


async def test_send__runs_the_loop_to_the_end(live: httpx.AsyncClient) -> None:
    await define(
        live,
        agent(
            "calc",
            [calls(("add", {"a": 2, "b": 3})), {"text": "2 + 3 = 5"}],
            [ADD],
            instructions="You add numbers.",
        ),
    )
    run = await send(live, "chat-42", {"agent_id": "calc", "input": "What is 2 + 3?"})

    assert run["status"] == "finished"
    assert run["output"] == "2 + 3 = 5"
    assert run["steps"] == 2
    assert run["usage"]["model_calls"] == 2
    items = await transcript(live, "chat-42")
    assert [m["role"] for m in items] == ["system", "user", "assistant", "tool", "assistant"]
    assert [m["seq"] for m in items] == [1, 2, 3, 4, 5]
    call = items[2]["tool_calls"][0]
    assert call["name"] == "add"
    assert call["arguments"] == {"a": 2, "b": 3}
    assert items[3]["tool_call_id"] == call["id"]
    assert items[3]["content"] == {"result": 5}
    session = (await live.get("/v1/sessions/chat-42")).json()
    assert session["status"] == "finished"
    assert session["checkpoint_seq"] >= 4


async def test_send__results_saved_in_settle_order_transcript_in_call_order(
    live: httpx.AsyncClient, database_url: str
) -> None:
    sleep = python_tool("sleep", "sleep")
    await define(
        live,
        agent(
            "race",
            [
                calls(
                    ("sleep", {"seconds": 0.6, "label": "slow"}),
                    ("sleep", {"seconds": 0.0, "label": "fast"}),
                ),
                {"text": "done"},
            ],
            [sleep],
        ),
    )
    run = await send(live, "race-1", {"agent_id": "race", "input": "go"})
    assert run["status"] == "finished"

    items = await transcript(live, "race-1")
    results = [m for m in items if m["role"] == "tool"]
    assert [r["content"]["label"] for r in results] == ["slow", "fast"]  # call order
    saved = pg.rows(
        database_url,
        "SELECT arguments->>'label', result_checkpoint_seq "
        "FROM tool_calls ORDER BY result_checkpoint_seq",
    )
    assert [label for label, _ in saved] == ["fast", "slow"]  # settle order
    assert saved[0][1] < saved[1][1]


async def test_turn__saved_before_any_tool_runs(live: httpx.AsyncClient, database_url: str) -> None:
    sleep = python_tool("sleep", "sleep")
    await define(
        live, agent("slowtool", [calls(("sleep", {"seconds": 1.5})), {"text": "ok"}], [sleep])
    )
    run = await send(live, "slow-1", {"agent_id": "slowtool", "input": "go"}, wait=0.5)
    assert run["status"] == "running"
    # The tool is still sleeping, yet its turn and the pending call are already durable.
    pending = pg.rows(database_url, "SELECT status FROM tool_calls")
    assert pending == [("pending",)]
    await wait_status(live, run["id"], {"finished"})


# -- tools that go wrong ----------------------------------------------------------------


async def test_tool__that_throws_yields_an_error_result(live: httpx.AsyncClient) -> None:
    await define(
        live, agent("boom", [calls(("boom", {})), {"text": "sorry"}], [python_tool("boom", "boom")])
    )
    run = await send(live, "boom-1", {"agent_id": "boom", "input": "charge"})
    assert run["status"] == "finished"
    result = [m for m in await transcript(live, "boom-1") if m["role"] == "tool"]
    assert len(result) == 1
    assert result[0]["status"] == "error"
    assert result[0]["content"]["error"] == "tool_failed"
    assert "payment service is down" in result[0]["content"]["message"]


async def test_model__naming_an_unknown_tool_gets_an_error_result(live: httpx.AsyncClient) -> None:
    await define(live, agent("ghost", [calls(("nope", {})), {"text": "ok"}], [ADD]))
    run = await send(live, "ghost-1", {"agent_id": "ghost", "input": "x"})
    assert run["status"] == "finished"
    result = next(m for m in await transcript(live, "ghost-1") if m["role"] == "tool")
    assert result["content"]["error"] == "unknown_tool"


async def test_arguments__invalid_ones_get_a_readable_error(live: httpx.AsyncClient) -> None:
    await define(live, agent("bad", [calls(("add", {"a": "two"})), {"text": "ok"}], [ADD]))
    await send(live, "bad-1", {"agent_id": "bad", "input": "x"})
    result = next(m for m in await transcript(live, "bad-1") if m["role"] == "tool")
    assert result["status"] == "error"
    assert result["content"]["error"] == "invalid_arguments"
    paths = {d["path"] for d in result["content"]["details"]}
    assert paths == {"", "a"}  # 'b' missing at the root, 'a' of the wrong type


async def test_tool_concurrency__bounds_parallel_calls(live: httpx.AsyncClient) -> None:
    ConcurrencyProbe.peak = 0
    batch = calls(*[("probe", {"sleep": 0.1}) for _ in range(6)])
    await define(
        live,
        agent("par", [batch, {"text": "ok"}], [python_tool("probe", "probe")], tool_concurrency=2),
    )
    run = await send(live, "par-1", {"agent_id": "par", "input": "x"})
    assert run["status"] == "finished"
    assert ConcurrencyProbe.peak == 2


# -- sessions over several sends ---------------------------------------------------------


async def test_session__finished_takes_next_message_as_new_turn(live: httpx.AsyncClient) -> None:
    await define(
        live,
        agent(
            "chat",
            [{"text": "first"}, {"text": "second"}, {"text": "third"}],
            [],
            instructions="Be brief.",
        ),
    )
    first = await send(live, "conv", {"agent_id": "chat", "input": "one"})
    second = await send(
        live,
        "conv",
        {"input": [{"role": "system", "content": "IGNORED"}, {"role": "user", "content": "two"}]},
    )
    assert (first["output"], second["output"]) == ("first", "second")
    assert second["steps"] == 1  # a new run counts from zero
    items = await transcript(live, "conv")
    assert [(m["role"], m["content"]) for m in items] == [
        ("system", "Be brief."),
        ("user", "one"),
        ("assistant", "first"),
        ("user", "two"),
        ("assistant", "second"),
    ]


async def test_session__queued_sends_run_one_at_a_time_in_order(live: httpx.AsyncClient) -> None:
    sleep = python_tool("sleep", "sleep")
    await define(
        live,
        agent("q", [calls(("sleep", {"seconds": 0.3})), {"text": "a"}, {"text": "b"}], [sleep]),
    )
    first = await send(live, "q-1", {"agent_id": "q", "input": "one"}, wait=0)
    second = await send(live, "q-1", {"input": "two"}, wait=0)
    assert second["seq"] == first["seq"] + 1
    done = await wait_status(live, second["id"], {"finished"})
    first = (await live.get(f"/v1/runs/{first['id']}")).json()
    assert first["status"] == "finished"
    assert first["finished_at"] <= done["created_at"] or first["finished_at"] <= done["finished_at"]
    items = await transcript(live, "q-1")
    assert [m["role"] for m in items] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
        "assistant",
    ]


async def test_if_busy__reject_answers_409(api: httpx.AsyncClient) -> None:
    await define(api, agent("r", [{"text": "x"}], []))
    await send(api, "busy", {"agent_id": "r", "input": "one"}, wait=0)
    response = await api.post("/v1/sessions/busy/runs", json={"input": "two", "if_busy": "reject"})
    assert response.status_code == 409
    assert response.json()["code"] == "SESSION_BUSY"


async def test_if_busy__interrupt_cancels_the_active_run(live: httpx.AsyncClient) -> None:
    sleep = python_tool("sleep", "sleep")
    await define(
        live, agent("i", [calls(("sleep", {"seconds": 30})), {"text": "redirected"}], [sleep])
    )
    first = await send(live, "int", {"agent_id": "i", "input": "slow"}, wait=0.5)
    second = await send(live, "int", {"input": "stop that", "if_busy": "interrupt"})
    assert second["status"] == "finished"
    assert second["output"] == "redirected"
    first = (await live.get(f"/v1/runs/{first['id']}")).json()
    assert first["status"] == "cancelled"
    items = await transcript(live, "int")
    tool = [m for m in items if m["role"] == "tool"]
    assert len(tool) == 1
    assert tool[0]["status"] == "cancelled"
    # The new input comes after the cancelled call's result: the transcript stays valid.
    assert [m["role"] for m in items][-3:] == ["tool", "user", "assistant"]


async def test_cancel__settles_pending_calls_and_ends_the_run(live: httpx.AsyncClient) -> None:
    sleep = python_tool("sleep", "sleep")
    await define(
        live,
        agent(
            "c",
            [calls(("sleep", {"seconds": 30}), ("sleep", {"seconds": 30})), {"text": "never"}],
            [sleep],
        ),
    )
    run = await send(live, "cancel-1", {"agent_id": "c", "input": "x"}, wait=0.5)
    response = await live.post(f"/v1/runs/{run['id']}/cancel")
    assert response.status_code == 200
    done = await wait_status(live, run["id"], {"cancelled"}, timeout=10)
    assert done["finish_reason"] == "cancelled"
    results = [m for m in await transcript(live, "cancel-1") if m["role"] == "tool"]
    assert [r["status"] for r in results] == ["cancelled", "cancelled"]
    again = await live.post(f"/v1/runs/{run['id']}/cancel")
    assert again.status_code == 409
    assert again.json()["code"] == "RUN_NOT_CANCELLABLE"


# -- idempotency -------------------------------------------------------------------------


async def test_idempotency_key__redelivery_returns_the_first_run(api: httpx.AsyncClient) -> None:
    await define(api, agent("idem", [{"text": "x"}], []))
    headers = {"Idempotency-Key": "delivery-7"}
    first = await send(api, "job-7", {"agent_id": "idem", "input": "pay"}, headers=headers, wait=0)
    again = await send(api, "job-7", {"agent_id": "idem", "input": "pay"}, headers=headers, wait=0)
    assert again["id"] == first["id"]
    runs = (await api.get("/v1/runs", params={"session_id": "job-7"})).json()["items"]
    assert len(runs) == 1


async def test_idempotency_key__concurrent_duplicates_make_one_run(
    api: httpx.AsyncClient,
) -> None:
    await define(api, agent("idem2", [{"text": "x"}], []))
    headers = {"Idempotency-Key": "same"}
    results = await asyncio.gather(
        *[
            api.post(
                "/v1/sessions/dup/runs", json={"agent_id": "idem2", "input": "x"}, headers=headers
            )
            for _ in range(8)
        ]
    )
    assert {r.status_code for r in results} == {202}
    assert len({r.json()["id"] for r in results}) == 1
    runs = (await api.get("/v1/runs", params={"session_id": "dup"})).json()["items"]
    assert len(runs) == 1


async def test_idempotency_key__reused_with_another_body_is_422_and_changes_nothing(
    api: httpx.AsyncClient,
) -> None:
    # The first run answered silently for a different request: the caller believed its
    # second message was sent.
    await define(api, agent("idem3", [{"text": "x"}], []))
    headers = {"Idempotency-Key": "k-1"}
    first = await send(
        api, "job-9", {"agent_id": "idem3", "input": "pay 5"}, headers=headers, wait=0
    )
    reused = await api.post(
        "/v1/sessions/job-9/runs", json={"agent_id": "idem3", "input": "pay 500"}, headers=headers
    )
    assert reused.status_code == 422, reused.text
    assert reused.json()["code"] == "IDEMPOTENCY_KEY_REUSED"
    assert reused.json()["run_id"] == first["id"]
    runs = (await api.get("/v1/runs", params={"session_id": "job-9"})).json()["items"]
    assert [r["id"] for r in runs] == [first["id"]]
    # The same body again is still the redelivery it always was.
    again = await send(
        api, "job-9", {"agent_id": "idem3", "input": "pay 5"}, headers=headers, wait=0
    )
    assert again["id"] == first["id"]


# -- model errors, resume, step budget ---------------------------------------------------


async def test_model__retryable_error_backs_off_and_retries(live: httpx.AsyncClient) -> None:
    flaky = {"text": "finally", "error": {"message": "503 upstream", "retryable": True, "times": 3}}
    await define(live, agent("flaky", [flaky], []))
    run = await send(live, "flaky-1", {"agent_id": "flaky", "input": "x"})
    assert run["status"] == "finished"
    assert run["output"] == "finally"
    assert run["attempts"] == 0
    assert run["last_error"] is None


async def test_model__retryable_error_is_visible_while_backing_off(
    api: httpx.AsyncClient, settings: Any
) -> None:
    from app.worker.pool import WorkerPool

    slow = settings.model_copy(update={"retry_base_s": 30.0, "retry_max_s": 30.0})
    await define(
        api, agent("flaky2", [{"text": "x", "error": {"message": "429", "retryable": True}}], [])
    )
    run = await send(api, "flaky-2", {"agent_id": "flaky2", "input": "x"}, wait=0)
    pool = WorkerPool(slow, concurrency=2)
    await pool.start()
    try:
        waiting = await wait_status(api, run["id"], {"queued"}, timeout=10)
        for _ in range(100):
            waiting = (await api.get(f"/v1/runs/{run['id']}")).json()
            if waiting["attempts"]:
                break
            await asyncio.sleep(0.05)
    finally:
        await pool.stop()
    assert waiting["attempts"] == 1
    assert waiting["last_error"]["retryable"] is True
    assert waiting["last_error"]["message"] == "429"
    listed = (await api.get("/v1/runs", params={"status": "queued"})).json()["items"]
    assert [r["id"] for r in listed] == [run["id"]]


async def test_resume__failed_run_continues_with_its_step_budget_and_one_system_message(
    live: httpx.AsyncClient,
) -> None:
    failing_once = {
        **calls(("add", {"a": 2, "b": 2})),
        "error": {"message": "400 bad request", "retryable": False, "times": 1},
    }
    script = [
        calls(("add", {"a": 1, "b": 1})),
        failing_once,
        calls(("add", {"a": 3, "b": 3})),
        calls(("add", {"a": 4, "b": 4})),  # only reachable with a fresh budget
        {"text": "the end"},
    ]
    await define(live, agent("budget", script, [ADD], instructions="SYSTEM", max_steps=3))
    run = await send(live, "budget-1", {"agent_id": "budget", "input": "x"})
    assert run["status"] == "failed"
    assert run["last_error"]["retryable"] is False
    assert run["steps"] == 1

    resumed = await live.post(f"/v1/runs/{run['id']}/resume")
    assert resumed.status_code == 200
    done = await wait_status(live, run["id"], {"finished", "failed"})
    assert done["status"] == "finished"
    # 1 step before the failure + 2 after = the budget of 3, not 1 + a fresh 3.
    assert done["steps"] == 3
    assert done["finish_reason"] == "max_steps"
    items = await transcript(live, "budget-1")
    assert sum(1 for m in items if m["role"] == "system") == 1
    assert sum(1 for m in items if m["role"] == "tool") == 3


async def test_resume__after_retries_ran_out_gets_a_fresh_budget(
    live: httpx.AsyncClient,
) -> None:
    """Review finding: a run that gave up after its retries must retry again when an
    operator resumes it, not fail on its first error."""
    down = {"text": "x", "error": {"message": "503 upstream", "retryable": True}}
    await define(live, agent("outage", [down], []))
    run = await send(live, "out-1", {"agent_id": "outage", "input": "x"})
    assert run["status"] == "failed"
    assert run["last_error"]["attempts"] == 8
    resumed = await live.post(f"/v1/runs/{run['id']}/resume")
    assert resumed.json()["attempts"] == 0
    again = await wait_status(live, run["id"], {"failed"}, timeout=30)
    assert again["last_error"]["attempts"] == 8  # eight more tries, not one


async def test_resume__only_failed_runs(live: httpx.AsyncClient) -> None:
    await define(live, agent("ok", [{"text": "x"}], []))
    run = await send(live, "ok-1", {"agent_id": "ok", "input": "x"})
    response = await live.post(f"/v1/runs/{run['id']}/resume")
    assert response.status_code == 409
    assert response.json()["code"] == "RUN_NOT_RESUMABLE"


# -- the ops list ------------------------------------------------------------------------


async def test_list_runs__cursor_pages_cover_everything_once(api: httpx.AsyncClient) -> None:
    await define(api, agent("many", [{"text": "x"}], []))
    ids = {
        (await send(api, f"s-{i}", {"agent_id": "many", "input": "x"}, wait=0))["id"]
        for i in range(7)
    }
    seen: list[str] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"limit": 3, "status": "queued"}
        if cursor:
            params["cursor"] = cursor
        page = (await api.get("/v1/runs", params=params)).json()
        seen.extend(r["id"] for r in page["items"])
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert sorted(seen) == sorted(ids)
    assert len(seen) == 7


@pytest.mark.parametrize(
    "params", [{"limit": 501}, {"limit": 0}, {"status": "bogus"}, {"cursor": "not-a-cursor"}]
)
async def test_list_runs__bad_query_is_422(api: httpx.AsyncClient, params: dict[str, Any]) -> None:
    response = await api.get("/v1/runs", params=params)
    assert response.status_code == 422
    assert response.json()["code"] == "VALIDATION_FAILED"


# -- deletion ----------------------------------------------------------------------------


async def test_delete_session__stops_its_run_and_removes_everything(
    live: httpx.AsyncClient, database_url: str
) -> None:
    sleep = python_tool("sleep", "sleep")
    await define(live, agent("d", [calls(("sleep", {"seconds": 1})), {"text": "x"}], [sleep]))
    run = await send(live, "gone", {"agent_id": "d", "input": "x"}, wait=0.3)
    assert (await live.delete("/v1/sessions/gone")).status_code == 204
    assert (await live.get("/v1/sessions/gone")).status_code == 404
    assert (await live.get(f"/v1/runs/{run['id']}")).status_code == 404
    await asyncio.sleep(1.5)  # the tool returns; its fenced write must match nothing
    assert pg.rows(database_url, "SELECT count(*) FROM tool_calls") == [(0,)]
    assert pg.rows(database_url, "SELECT count(*) FROM checkpoints") == [(0,)]
