"""Human approvals in the middle of a tool batch: pause once, decide, continue, at most once."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from app.main import create_app
from app.settings import Settings
from tests import pg
from tests.agents import ADD_SCHEMA, agent, calls, python_tool
from tests.conftest import started_client, wait_status
from tests.support import define, run_to_rest, transcript

AMOUNT = {"type": "object", "properties": {"amount": {"type": "integer"}}, "required": ["amount"]}


def charge_tool(**extra: Any) -> dict[str, Any]:
    """`charge` needs approval from 100 up; `echo` shows the arguments it ran with."""
    return {
        **python_tool("charge", "echo", AMOUNT),
        "needs_approval": {"properties": {"amount": {"minimum": 100}}},
        **extra,
    }


def gated(name: str, function: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    return {**python_tool(name, function, schema), "needs_approval": True}


async def paused_run(
    client: httpx.AsyncClient, session: str, body: dict[str, Any]
) -> dict[str, Any]:
    run = await run_to_rest(client, session, body)
    assert run["status"] == "awaiting_approval", run
    return run


async def decide(client: httpx.AsyncClient, approval_id: str, **body: Any) -> httpx.Response:
    return await client.post(f"/v1/approvals/{approval_id}/decision", json=body)


MIXED = calls(
    ("add", {"a": 1, "b": 1}),
    ("charge", {"amount": 500}),  # gated by the schema
    ("charge", {"amount": 5}),  # below the threshold: runs at once
    ("wire", {"to": "acme"}),  # always gated
)


async def test_mixed_batch__others_run_then_one_pause_for_every_gated_call(
    live: httpx.AsyncClient, database_url: str
) -> None:
    await define(
        live,
        agent(
            "pay",
            [MIXED, {"text": "all done"}],
            [python_tool("add", "add", ADD_SCHEMA), charge_tool(), gated("wire", "echo")],
        ),
    )
    run = await paused_run(live, "pay-1", {"agent_id": "pay", "input": "pay"})

    pending = run["pending_approvals"]
    assert [(p["tool"], p["arguments"]) for p in pending] == [
        ("charge", {"amount": 500}),
        ("wire", {"to": "acme"}),
    ]
    settled = [
        (m["name"], m["status"]) for m in await transcript(live, "pay-1") if m["role"] == "tool"
    ]
    assert settled == [("add", "ok"), ("charge", "ok")]
    # Lease released, no worker slot held while it waits.
    assert pg.rows(database_url, "SELECT lease_owner, lease_expires_at FROM runs") == [(None, None)]
    listed = (await live.get("/v1/approvals", params={"status": "pending"})).json()["items"]
    assert [a["id"] for a in listed] == [p["id"] for p in pending]
    one = (await live.get(f"/v1/approvals/{pending[0]['id']}")).json()
    assert (one["session_id"], one["run_id"], one["status"]) == ("pay-1", run["id"], "pending")
    assert one["created_at"] is not None


async def test_decisions__continue_the_run_with_results_in_call_order(
    live: httpx.AsyncClient,
) -> None:
    await define(
        live,
        agent(
            "pay",
            [MIXED, {"text": "all done"}],
            [python_tool("add", "add", ADD_SCHEMA), charge_tool(), gated("wire", "echo")],
            instructions="SYSTEM",
        ),
    )
    run = await paused_run(live, "pay-2", {"agent_id": "pay", "input": "pay"})
    charge, wire = run["pending_approvals"]

    approved = await decide(live, charge["id"], approved=True, arguments={"amount": 450})
    assert approved.status_code == 200
    assert approved.json()["status"] == "approved"
    assert (await live.get(f"/v1/runs/{run['id']}")).json()["status"] == "awaiting_approval"
    rejected = await decide(live, wire["id"], approved=False, reason="not this vendor")
    assert rejected.status_code == 200

    done = await wait_status(live, run["id"], {"finished"})
    assert done["output"] == "all done"
    items = await transcript(live, "pay-2")
    results = [(m["name"], m["status"], m["content"]) for m in items if m["role"] == "tool"]
    assert [r[:2] for r in results] == [
        ("add", "ok"),
        ("charge", "ok"),
        ("charge", "ok"),
        ("wire", "rejected"),
    ]
    assert results[1][2]["echo"] == {"amount": 450}  # the edited arguments ran
    assert results[3][2] == {"error": "rejected", "note": "not this vendor"}
    assert items[-1]["role"] == "assistant"  # the model comes after every result
    assert sum(1 for m in items if m["role"] == "system") == 1  # one system message
    twice = await decide(live, charge["id"], approved=False)
    assert twice.status_code == 409
    assert twice.json()["code"] == "APPROVAL_ALREADY_DECIDED"


async def test_decision__bad_input(api: httpx.AsyncClient, live: httpx.AsyncClient) -> None:
    await define(
        live, agent("g", [calls(("charge", {"amount": 100})), {"text": "x"}], [charge_tool()])
    )
    run = await paused_run(live, "g-1", {"agent_id": "g", "input": "x"})
    approval_id = run["pending_approvals"][0]["id"]

    unknown = await decide(live, "00000000-0000-0000-0000-000000000000", approved=True)
    assert (unknown.status_code, unknown.json()["code"]) == (404, "NOT_FOUND")
    for body in ({}, {"approved": "maybe"}, {"approved": True, "by": "forged"}):
        response = await live.post(f"/v1/approvals/{approval_id}/decision", json=body)
        assert (response.status_code, response.json()["code"]) == (422, "VALIDATION_FAILED")
    edited = await decide(live, approval_id, approved=True, arguments={"amount": "lots"})
    assert edited.status_code == 422
    assert edited.json()["errors"][0]["loc"] == ["body", "arguments", "amount"]
    assert (await live.get(f"/v1/approvals/{approval_id}")).json()["status"] == "pending"


async def test_send__to_a_session_awaiting_approval_is_409_and_appends_nothing(
    live: httpx.AsyncClient, database_url: str
) -> None:
    await define(live, agent("w", [calls(("wire", {})), {"text": "x"}], [gated("wire", "echo")]))
    run = await paused_run(live, "w-1", {"agent_id": "w", "input": "x"})
    before = pg.rows(database_url, "SELECT count(*) FROM messages")
    for if_busy in ("queue", "interrupt"):
        response = await live.post(
            "/v1/sessions/w-1/runs",
            params={"wait": 0},
            json={"input": "and now?", "if_busy": if_busy},
        )
        assert response.status_code == 409
        body = response.json()
        assert body["code"] == "SESSION_AWAITING_APPROVAL"
        assert body["approval_ids"] == [run["pending_approvals"][0]["id"]]
    assert pg.rows(database_url, "SELECT count(*) FROM messages") == before
    assert pg.rows(database_url, "SELECT count(*) FROM runs") == [(1,)]


@pytest.mark.parametrize("how", ["cancel", "delete"])
async def test_stale_approval__is_orphaned_and_touches_nothing(
    live: httpx.AsyncClient, database_url: str, how: str
) -> None:
    await define(
        live,
        agent(
            "s", [calls(("wire", {})), {"text": "x"}, {"text": "after"}], [gated("wire", "echo")]
        ),
    )
    run = await paused_run(live, "s-1", {"agent_id": "s", "input": "x"})
    approval_id = run["pending_approvals"][0]["id"]
    if how == "cancel":
        assert (await live.post(f"/v1/runs/{run['id']}/cancel")).status_code == 200
        await wait_status(live, run["id"], {"cancelled"})
        later = await run_to_rest(live, "s-1", {"input": "new work"})
        assert later["status"] == "finished"
    else:
        assert (await live.delete("/v1/sessions/s-1")).status_code == 204
    before = pg.rows(database_url, "SELECT count(*), max(seq) FROM messages")

    response = await decide(live, approval_id, approved=True)
    assert (response.status_code, response.json()["code"]) == (409, "APPROVAL_ORPHANED")
    assert (await live.get(f"/v1/approvals/{approval_id}")).json()["status"] == "orphaned"
    assert pg.rows(database_url, "SELECT count(*), max(seq) FROM messages") == before
    assert pg.rows(
        database_url, "SELECT count(*) FROM runs WHERE status NOT IN ('finished', 'cancelled')"
    ) == [(0,)]
    again = await decide(live, approval_id, approved=True)
    assert again.json()["code"] == "APPROVAL_ORPHANED"


async def test_deleted_session__its_approvals_keep_no_arguments(live: httpx.AsyncClient) -> None:
    """Approvals outlive a deleted session (a late decision still finds them orphaned),
    but the call's arguments were the session's data and go with it."""
    secret = {"card": "4111-1111-1111-1111"}
    await define(
        live, agent("d", [calls(("wire", secret)), {"text": "x"}], [gated("wire", "echo")])
    )
    run = await paused_run(live, "s-del", {"agent_id": "d", "input": "x"})
    approval_id = run["pending_approvals"][0]["id"]
    assert (await live.get(f"/v1/approvals/{approval_id}")).json()["arguments"] == secret
    assert (await live.delete("/v1/sessions/s-del")).status_code == 204
    shown = (await live.get(f"/v1/approvals/{approval_id}")).json()
    assert shown["status"] == "orphaned"
    assert shown["arguments"] is None
    listed = (await live.get("/v1/approvals", params={"session_id": "s-del"})).json()
    assert "4111" not in str(listed)
    response = await decide(live, approval_id, approved=True)
    assert response.json()["code"] == "APPROVAL_ORPHANED"


async def test_expiry__an_undecided_approval_is_rejected_and_the_run_goes_on(
    live: httpx.AsyncClient,
) -> None:
    await define(
        live,
        agent(
            "e",
            [calls(("wire", {})), {"text": "moved on"}],
            [{**gated("wire", "echo"), "approval_timeout_s": 0.5}],
        ),
    )
    run = await paused_run(live, "e-1", {"agent_id": "e", "input": "x"})
    assert run["pending_approvals"][0]["expires_at"] is not None
    done = await wait_status(live, run["id"], {"finished"}, timeout=15)
    assert done["output"] == "moved on"
    result = next(m for m in await transcript(live, "e-1") if m["role"] == "tool")
    assert result["status"] == "rejected"
    assert result["content"] == {"error": "rejected", "note": "the approval expired"}
    approval = (await live.get(f"/v1/approvals/{run['pending_approvals'][0]['id']}")).json()
    assert approval["status"] == "expired"


async def test_tool_that_throws_after_approval__error_result_and_the_approval_stays(
    live: httpx.AsyncClient,
) -> None:
    await define(
        live, agent("b", [calls(("boom", {})), {"text": "handled"}], [gated("boom", "boom")])
    )
    run = await paused_run(live, "b-1", {"agent_id": "b", "input": "x"})
    approval_id = run["pending_approvals"][0]["id"]
    assert (await decide(live, approval_id, approved=True)).status_code == 200
    done = await wait_status(live, run["id"], {"finished"})
    assert done["output"] == "handled"
    result = next(m for m in await transcript(live, "b-1") if m["role"] == "tool")
    assert result["status"] == "error"
    assert result["content"]["error"] == "tool_failed"
    assert (await live.get(f"/v1/approvals/{approval_id}")).json()["status"] == "approved"


async def test_step_budget__continues_after_an_approval(live: httpx.AsyncClient) -> None:
    script = [
        calls(("wire", {})),
        calls(("add", {"a": 1, "b": 2})),
        calls(("add", {"a": 3, "b": 4})),
        {"text": "fresh budget"},
    ]
    await define(
        live,
        agent(
            "sb",
            script,
            [gated("wire", "echo"), python_tool("add", "add", ADD_SCHEMA)],
            max_steps=2,
        ),
    )
    run = await paused_run(live, "sb-1", {"agent_id": "sb", "input": "x"})
    assert run["steps"] == 1
    await decide(live, run["pending_approvals"][0]["id"], approved=True)
    done = await wait_status(live, run["id"], {"finished"})
    assert done["steps"] == 2
    assert done["finish_reason"] == "max_steps"


async def test_resumed_run__never_overridden_by_pre_pause_state(live: httpx.AsyncClient) -> None:
    """After the approval resume, the next send builds on the resumed run's results."""
    await define(
        live,
        agent(
            "st",
            [calls(("wire", {"n": 1})), {"text": "wired"}, {"text": "second turn"}],
            [gated("wire", "echo")],
        ),
    )
    run = await paused_run(live, "st-1", {"agent_id": "st", "input": "x"})
    await decide(live, run["pending_approvals"][0]["id"], approved=True)
    await wait_status(live, run["id"], {"finished"})
    follow = await run_to_rest(live, "st-1", {"input": "next"})
    assert follow["output"] == "second turn"
    roles = [(m["role"], m.get("status")) for m in await transcript(live, "st-1")]
    assert roles == [
        ("user", None),
        ("assistant", None),
        ("tool", "ok"),
        ("assistant", None),
        ("user", None),
        ("assistant", None),
    ]


async def test_two_replicas__decide_on_one_read_on_the_other(
    live: httpx.AsyncClient, settings: Settings
) -> None:
    await define(
        live, agent("r", [calls(("wire", {})), {"text": "via replica"}], [gated("wire", "echo")])
    )
    run = await paused_run(live, "r-1", {"agent_id": "r", "input": "x"})
    async for replica in started_client(
        create_app(settings, pool_concurrency=0, open_when_keyless=True)
    ):
        response = await decide(replica, run["pending_approvals"][0]["id"], approved=True)
        assert response.status_code == 200
        done = await wait_status(replica, run["id"], {"finished"})
        assert done["output"] == "via replica"
    assert (await live.get(f"/v1/runs/{run['id']}")).json()["output"] == "via replica"
