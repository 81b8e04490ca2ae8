"""Schedules over the API, fired by the workers' store code against a real Postgres.

Time passing without a worker is made by moving a schedule's times into the past (its
anchor, next due and next fire time, all by the same amount): to the firing code that is
exactly a fleet that was down that long. The API runs without a worker pool, so the
fired runs stay queued (not ended) unless a test ends them.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.store import firing
from tests.agents import agent
from tests.support import define, get_json

WINDOW_S = 35.0


async def make(client: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    """Create a schedule of agent `a` (interval 10 s unless said otherwise)."""
    if "cron" not in body:
        body.setdefault("interval_s", 10)
    response = await client.post(
        "/v1/schedules", json={"id": "s", "agent_id": "a", "input": "tick", **body}
    )
    assert response.status_code == 201, response.text
    schedule: dict[str, Any] = response.json()
    return schedule


async def pass_time(engine: AsyncEngine, seconds: float, schedule_id: str = "s") -> None:
    """Make `seconds` pass for the schedule with no worker looking: its times and its
    history move that far into the past. (Sessions named after due times do not move, so
    a test that fires more than once names a fixed session.)"""
    async with engine.begin() as conn:
        await conn.execute(
            text(
                "UPDATE schedules SET anchor_at = anchor_at - make_interval(secs => :s), "
                "next_due_at = next_due_at - make_interval(secs => :s), "
                "next_fire_at = next_fire_at - make_interval(secs => :s) WHERE id = :id"
            ),
            {"s": seconds, "id": schedule_id},
        )
        await conn.execute(
            text(
                "UPDATE schedule_fires SET due_at = due_at - make_interval(secs => :s), "
                "fired_at = fired_at - make_interval(secs => :s) WHERE schedule_id = :id"
            ),
            {"s": seconds, "id": schedule_id},
        )


async def fire_all(engine: AsyncEngine, window_s: float = WINDOW_S) -> int:
    """What a worker's pass does: claim and fire due schedules until none is due."""
    claims = 0
    while True:
        async with engine.begin() as conn:
            claimed = await firing.claim_due(conn)
            if claimed is None:
                return claims
            await firing.fire(conn, claimed, owner="test", catch_up_window_s=window_s)
        claims += 1


async def fires(client: httpx.AsyncClient, schedule_id: str = "s") -> list[dict[str, Any]]:
    """Every fire of the schedule, oldest first."""
    page = await get_json(client, f"/v1/schedules/{schedule_id}/fires?limit=500")
    items: list[dict[str, Any]] = page["items"]
    return items[::-1]


@pytest.fixture
async def client(api: httpx.AsyncClient) -> httpx.AsyncClient:
    await define(api, agent("a", [{"text": "done"}], []))
    return api


async def test_create_read_list_pause_resume_delete(
    client: httpx.AsyncClient, engine: AsyncEngine
) -> None:
    made = await make(client, metadata={"team": "ops"}, jitter_s=0)
    assert made["status"] == "active"
    assert made["session"] == "new"
    assert made["input"] == [{"role": "user", "content": "tick"}]
    assert made["next_due_at"] is not None
    assert await get_json(client, "/v1/schedules/s") == made
    for i in range(3):
        await make(client, id=f"t{i}", cron="0 7 * * *", timezone="Europe/Paris")
    first = await get_json(client, "/v1/schedules?limit=2")
    assert [s["id"] for s in first["items"]] == ["s", "t0"]
    second = await get_json(client, f"/v1/schedules?limit=2&cursor={first['next_cursor']}")
    assert [s["id"] for s in second["items"]] == ["t1", "t2"]
    assert second["next_cursor"] is None

    paused = (await client.post("/v1/schedules/s/pause")).json()
    assert (paused["status"], paused["next_due_at"]) == ("paused", None)
    await pass_time(engine, 60)
    assert await fire_all(engine) == 0, "a paused schedule does not fire"
    resumed = (await client.post("/v1/schedules/s/resume")).json()
    assert resumed["status"] == "active"
    # Due next after now (the 60 s shift moved the anchor by whole intervals), not at the
    # due times that passed while paused.
    assert resumed["next_due_at"] == made["next_due_at"]
    assert await fire_all(engine) == 0
    assert await fires(client) == []

    assert (await client.delete("/v1/schedules/s")).status_code == 204
    for path in ("/v1/schedules/s", "/v1/schedules/s/fires"):
        gone = await client.get(path)
        assert (gone.status_code, gone.json()["code"]) == (404, "NOT_FOUND")
    assert (await client.delete("/v1/schedules/s")).status_code == 404


async def test_a_due_time_fires_once_an_ordinary_run_in_a_session_of_its_own(
    client: httpx.AsyncClient, engine: AsyncEngine
) -> None:
    made = await make(client)
    await pass_time(engine, 10)
    assert await fire_all(engine) == 1
    assert await fire_all(engine) == 0, "fired: not due again until the next due time"
    (fire,) = await fires(client)
    assert fire["outcome"] == "started"
    assert fire["due_at"] is not None
    run = await get_json(client, f"/v1/runs/{fire['run_id']}")
    assert run["status"] == "queued"
    assert run["input"] == [{"role": "user", "content": "tick"}]
    assert run["session_id"] == fire["session_id"]
    assert fire["session_id"].startswith("s-")
    assert fire["session_id"].endswith("Z")
    session = await get_json(client, f"/v1/sessions/{fire['session_id']}")
    assert session["metadata"]["schedule_id"] == "s"
    after = await get_json(client, "/v1/schedules/s")
    assert after["last_run_id"] == fire["run_id"]
    # Next: the due time after the one fired (moved 10 s back with it, so the first one).
    assert after["next_due_at"] == made["next_due_at"]


async def test_catch_up_all__missed_ones_in_the_window_fire_once_each_older_are_skipped(
    client: httpx.AsyncClient, engine: AsyncEngine
) -> None:
    await make(client, overlap="queue")
    await pass_time(engine, 100)  # ten due times passed with no worker
    await fire_all(engine)
    got = await fires(client)
    assert len(got) == 10
    assert [(f["outcome"], f["reason"]) for f in got] == [("skipped", "missed")] * 6 + [
        ("started", None)
    ] * 4
    assert len({f["run_id"] for f in got if f["run_id"]}) == 4
    assert await fire_all(engine) == 0


async def test_catch_up_latest__only_the_newest_fires(
    client: httpx.AsyncClient, engine: AsyncEngine
) -> None:
    await make(client, overlap="queue", catch_up="latest")
    await pass_time(engine, 100)
    await fire_all(engine)
    got = await fires(client)
    assert [(f["outcome"], f["reason"]) for f in got] == [("skipped", "missed")] * 6 + [
        ("skipped", "superseded")
    ] * 3 + [("started", None)]


async def test_overlap_skip__a_fire_while_the_previous_run_goes_on_is_skipped(
    client: httpx.AsyncClient, engine: AsyncEngine
) -> None:
    await make(client, overlap="skip", session="nightly")
    await pass_time(engine, 10)
    await fire_all(engine)
    await pass_time(engine, 10)
    await fire_all(engine)
    first, second = await fires(client)
    assert first["outcome"] == "started"
    assert (second["outcome"], second["reason"]) == ("skipped", "overlap")
    assert second["previous_run_id"] == first["run_id"]
    assert second["run_id"] is None
    # Once it ended, the next one starts.
    assert (await client.post(f"/v1/runs/{first['run_id']}/cancel")).status_code == 200
    await pass_time(engine, 10)
    await fire_all(engine)
    third = (await fires(client))[-1]
    assert third["outcome"] == "started"
    assert third["previous_run_id"] is None


async def test_overlap_queue__a_fixed_session_queues_the_runs_one_behind_the_other(
    client: httpx.AsyncClient, engine: AsyncEngine
) -> None:
    await make(client, overlap="queue", session="daily-digest")
    for _ in range(2):
        await pass_time(engine, 10)
        await fire_all(engine)
    first, second = await fires(client)
    assert first["outcome"] == second["outcome"] == "started"
    assert second["previous_run_id"] == first["run_id"]
    runs = [await get_json(client, f"/v1/runs/{f['run_id']}") for f in (first, second)]
    assert [(r["session_id"], r["seq"], r["status"]) for r in runs] == [
        ("daily-digest", 1, "queued"),
        ("daily-digest", 2, "queued"),
    ]


async def test_overlap_cancel_previous__the_previous_run_is_cancelled_then_one_starts(
    client: httpx.AsyncClient, engine: AsyncEngine
) -> None:
    await make(client, overlap="cancel_previous", session="nightly")
    for _ in range(2):
        await pass_time(engine, 10)
        await fire_all(engine)
    first, second = await fires(client)
    assert second["outcome"] == "started"
    assert second["previous_run_id"] == first["run_id"]
    cancelled = await get_json(client, f"/v1/runs/{first['run_id']}")
    assert (cancelled["status"], cancelled["cancel_requested"]) == ("cancelled", True)
    assert (await get_json(client, f"/v1/runs/{second['run_id']}"))["status"] == "queued"


async def test_a_refused_send_is_a_failed_fire_and_the_schedule_goes_on(
    client: httpx.AsyncClient, engine: AsyncEngine
) -> None:
    """The fixed session was taken by another agent after the schedule was made."""
    await make(client, session="shared")
    await define(client, agent("other", [{"text": "x"}], []))
    sent = await client.post("/v1/sessions/shared/runs", json={"agent_id": "other", "input": "x"})
    assert sent.status_code == 202
    await pass_time(engine, 10)
    await fire_all(engine)
    (fire,) = await fires(client)
    assert fire["outcome"] == "failed"
    assert fire["error"]["code"] == "SESSION_AGENT_MISMATCH"
    assert fire["run_id"] is None
    runs = await get_json(client, "/v1/runs")
    assert len(runs["items"]) == 1, "the failed fire left no run behind"
    await pass_time(engine, 10)
    await fire_all(engine)
    assert len(await fires(client)) == 2


async def test_bad_schedules_are_clear_problems(client: httpx.AsyncClient) -> None:
    base = {"id": "bad", "agent_id": "a", "input": "x"}
    for body, status, code, loc in (
        ({"cron": "* * *"}, 422, "VALIDATION_FAILED", ["body", "cron"]),
        ({"cron": "0 0 30 2 *"}, 422, "VALIDATION_FAILED", ["body", "cron"]),
        ({}, 422, "VALIDATION_FAILED", ["body", "cron"]),
        ({"cron": "* * * * *", "interval_s": 5}, 422, "VALIDATION_FAILED", ["body", "cron"]),
        (
            {"interval_s": 5, "timezone": "Mars/Base"},
            422,
            "VALIDATION_FAILED",
            ["body", "timezone"],
        ),
        ({"interval_s": 0}, 422, "VALIDATION_FAILED", ["body", "interval_s"]),
        ({"interval_s": 5, "overlap": "maybe"}, 422, "VALIDATION_FAILED", ["body", "overlap"]),
        ({"interval_s": 5, "session": "..bad"}, 422, "SESSION_ID_INVALID", None),
        ({"interval_s": 5, "agent_id": "nobody"}, 404, "NOT_FOUND", None),
        ({"interval_s": 5, "lease_owner": "me"}, 422, "VALIDATION_FAILED", None),
    ):
        response = await client.post("/v1/schedules", json={**base, **body})
        assert response.status_code == status, (body, response.text)
        problem = response.json()
        assert problem["code"] == code, (body, problem)
        if loc is not None:
            assert problem["errors"][0]["loc"] == loc, (body, problem)
    await make(client, id="dup")
    again = await client.post("/v1/schedules", json={**base, "id": "dup", "interval_s": 5})
    assert (again.status_code, again.json()["code"]) == (409, "SCHEDULE_EXISTS")
    cursor = await client.get("/v1/schedules/dup/fires?cursor=nonsense")
    assert (cursor.status_code, cursor.json()["code"]) == (422, "VALIDATION_FAILED")


async def test_jitter_is_no_lateness__a_jittered_fire_is_not_missed(
    client: httpx.AsyncClient, engine: AsyncEngine
) -> None:
    """Fired 500 s after its due time because of its jitter, with a window of 35 s: the
    window counts from due time plus jitter, so it starts."""
    await make(client, interval_s=3600, jitter_s=600)
    async with engine.begin() as conn:
        await conn.execute(
            text("UPDATE schedules SET next_fire_at = next_due_at + interval '500 seconds'")
        )
    await pass_time(engine, 3600)
    assert await fire_all(engine) == 0, "not before its jittered time"
    await pass_time(engine, 510)
    assert await fire_all(engine) == 1
    (fire,) = await fires(client)
    assert fire["outcome"] == "started"
