"""Workers are real processes, killed with real signals; the database and the tool server
say what happened. Each test names the guarantee of DESIGN.md §11 that it proves."""

from __future__ import annotations

import asyncio
import signal
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests import pg
from tests.agents import agent, calls, http_tool
from tests.conftest import wait_status
from tests.crash.harness import (
    ToolCallSeen,
    labelled,
    model_calls,
    tool_server,
    workers,
)
from tests.support import define, define_and_send

pytestmark = pytest.mark.timeout(90)


async def until(predicate: Any, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)


def results_in_order(database_url: str, session: str) -> list[tuple[str, str, Any]]:
    return [
        (r[0], r[1], r[2])
        for r in pg.rows(
            database_url,
            "SELECT arguments->>'label', status, result FROM tool_calls WHERE session_id = %s "
            "ORDER BY seq",
            session,
        )
    ]


async def test_sigkill_mid_tool_call__done_calls_never_rerun_interrupted_call_reruns_same_id(
    api: httpx.AsyncClient, database_url: str, tmp_path: Path
) -> None:
    """Guarantees 1 and 2: one result per call, in call order; recorded results never re-run."""
    call_log = tmp_path / "model.log"
    with tool_server() as tools, workers(tmp_path, database_url, call_log) as start:
        batch = calls(
            ("fx", {"label": "a"}), ("fx", {"label": "b", "hold": True}), ("fx", {"label": "c"})
        )
        run_id = await define_and_send(
            api,
            agent(
                "k",
                [batch, {"text": "done"}],
                [http_tool("fx", tools.url)],
                tool_concurrency=1,
            ),
            "kill-1",
        )
        first = start()
        await asyncio.to_thread(tools.wait_for, labelled("b"))
        await until(
            lambda: (
                pg.rows(database_url, "SELECT count(*) FROM tool_calls WHERE result IS NOT NULL")
                == [(1,)]
            )
        )
        first.kill()  # SIGKILL while call b is in flight at the tool server
        start()
        done = await wait_status(api, run_id, {"finished"}, timeout=30)

    assert done["output"] == "done"
    by_label = Counter(c.arguments["label"] for c in tools.calls)
    assert by_label == {"a": 1, "b": 2, "c": 1}
    b_keys = {c.key for c in tools.calls if c.arguments["label"] == "b"}
    assert len(b_keys) == 1, "the re-run must carry the same tool_call_id"
    recorded = results_in_order(database_url, "kill-1")
    assert [(label, status) for label, status, _ in recorded] == [
        ("a", "ok"),
        ("b", "ok"),
        ("c", "ok"),
    ]
    assert recorded[1][2]["attempt"] == 2  # b's result is the re-run's


async def test_sigkill_after_turn_commit__the_model_is_not_called_again_for_that_turn(
    api: httpx.AsyncClient, database_url: str, tmp_path: Path
) -> None:
    """Guarantee 2: a checkpointed model turn is never generated again."""
    call_log = tmp_path / "model.log"
    with tool_server() as tools, workers(tmp_path, database_url, call_log) as start:
        run_id = await define_and_send(
            api,
            agent(
                "t",
                [calls(("fx", {"label": "x"})), {"text": "done"}],
                [http_tool("fx", tools.url)],
                instructions="SYSTEM",
            ),
            "turn-1",
        )
        first = start(PERDURE_FAULTS="after_turn_commit")
        assert await asyncio.to_thread(first.wait) == -signal.SIGKILL
        # The turn and its pending call were saved; no tool ran.
        assert pg.rows(database_url, "SELECT status FROM tool_calls") == [("pending",)]
        assert tools.calls == []
        start()
        done = await wait_status(api, run_id, {"finished"}, timeout=30)

    made = [(c["session_id"], c["position"]) for c in model_calls(call_log)]
    assert made == [("turn-1", 0), ("turn-1", 1)], made
    pids = [c["pid"] for c in model_calls(call_log)]
    assert pids[0] == first.pid
    assert pids[1] != first.pid
    assert Counter(c.key for c in tools.calls) == {tools.calls[0].key: 1}
    assert done["steps"] == 2
    roles = [r[0] for r in pg.rows(database_url, "SELECT role FROM messages ORDER BY seq")]
    assert roles.count("system") == 1  # one system message after a resume


async def test_sigstop_past_lease__the_zombie_writes_nothing_after_takeover(
    api: httpx.AsyncClient, database_url: str, tmp_path: Path
) -> None:
    """Guarantee 6: a worker that lost its lease writes nothing more.

    The zombie wakes up while the new holder is still mid-run (its own attempt at the same
    call is held), so only the fencing token stands between the zombie's late result and
    the transcript.
    """
    call_log = tmp_path / "model.log"
    with tool_server() as tools, workers(tmp_path, database_url, call_log) as start:
        run_id = await define_and_send(
            api,
            agent(
                "z",
                [calls(("fx", {"label": "z", "hold": 2})), {"text": "done"}],
                [http_tool("fx", tools.url)],
            ),
            "zombie-1",
        )
        zombie = start()
        await asyncio.to_thread(tools.wait_for, labelled("z"))
        zombie_token = tools.calls[0].token
        zombie.signal(signal.SIGSTOP)

        start()  # takes the run over once the zombie's lease (3 s) expires
        await asyncio.to_thread(tools.wait_for, lambda seen: len(seen) == 2, 30)
        assert tools.calls[1].token > zombie_token
        saved = pg.rows(database_url, "SELECT count(*) FROM checkpoints")

        tools.release(attempt=1)  # the zombie's call answers first...
        zombie.signal(signal.SIGCONT)  # ...and the zombie wakes up to it
        await asyncio.sleep(3)  # six of its heartbeats
        assert pg.rows(database_url, "SELECT count(*) FROM checkpoints") == saved
        assert pg.rows(database_url, "SELECT status FROM tool_calls") == [("pending",)]

        tools.release(attempt=2)  # now the real holder's
        done = await wait_status(api, run_id, {"finished"}, timeout=30)

    result = pg.rows(database_url, "SELECT result FROM tool_calls")[0][0]
    assert result["attempt"] == 2, "the recorded result must be the new holder's"
    assert [c.token for c in tools.calls].count(zombie_token) == 1, "no new effect"
    assert done["status"] == "finished"
    assert "lease" in zombie.log()


async def test_many_runs_several_workers__each_run_held_by_one_worker_and_all_finish(
    api: httpx.AsyncClient, database_url: str, tmp_path: Path
) -> None:
    """Guarantee 6 under load, and no spurious takeovers when nothing fails."""
    call_log = tmp_path / "model.log"
    sessions = 30
    with tool_server() as tools, workers(tmp_path, database_url, call_log) as start:
        body = agent(
            "m",
            [
                calls(("fx", {"sleep": 0.05})),
                calls(("fx", {"sleep": 0.05}), ("fx", {"sleep": 0.01})),
                {"text": "done"},
            ],
            [http_tool("fx", tools.url)],
        )
        await define(api, body)
        fleet = [start(PERDURE_WORKER_CONCURRENCY="8") for _ in range(3)]
        # Every worker up before the runs exist: on a loaded machine the first one up
        # could otherwise take them all before the others had started.
        await until(lambda: all("perdure: worker" in w.log() for w in fleet), timeout=60)
        for i in range(sessions):
            response = await api.post(
                f"/v1/sessions/m-{i}/runs", json={"agent_id": "m", "input": "go"}
            )
            assert response.status_code == 202

        def all_finished() -> bool:
            return pg.rows(database_url, "SELECT count(*) FROM runs WHERE status = 'finished'") == [
                (sessions,)
            ]

        await until(all_finished, timeout=60)

    assert pg.rows(database_url, "SELECT max(claims) FROM runs") == [(1,)]
    per_run: dict[str, set[int]] = {}
    for call in tools.calls:
        per_run.setdefault(call.run_id, set()).add(call.token)
    assert len(per_run) == sessions
    assert all(len(tokens) == 1 for tokens in per_run.values())
    assert set(Counter(c.key for c in tools.calls).values()) == {1}
    assert no_overlap_between_tokens(tools.calls)
    made = Counter((c["session_id"], c["position"]) for c in model_calls(call_log))
    assert len(made) == sessions * 3
    assert set(made.values()) == {1}
    assert len({c["pid"] for c in model_calls(call_log)}) > 1, "the workers competed"


def no_overlap_between_tokens(seen: list[ToolCallSeen]) -> bool:
    """No two different lease holders of one run ever had a tool call in flight at once."""
    by_run: dict[str, list[ToolCallSeen]] = {}
    for call in seen:
        by_run.setdefault(call.run_id, []).append(call)
    for calls_of_run in by_run.values():
        for a in calls_of_run:
            for b in calls_of_run:
                if (
                    a.token != b.token
                    and a.started < (b.ended or 1e18)
                    and b.started < (a.ended or 1e18)
                ):
                    return False
    return True


async def test_sigterm__hands_the_run_back_for_another_worker_at_once(
    api: httpx.AsyncClient, database_url: str, tmp_path: Path
) -> None:
    """Graceful shutdown: the in-flight call finishes and is recorded, the lease is released,
    and another worker continues long before the lease (30 s here) could expire."""
    call_log = tmp_path / "model.log"
    with tool_server() as tools, workers(tmp_path, database_url, call_log) as start:
        run_id = await define_and_send(
            api,
            agent(
                "g",
                [
                    calls(("fx", {"label": "t", "sleep": 1.0})),
                    calls(("fx", {"label": "u"})),
                    {"text": "done"},
                ],
                [http_tool("fx", tools.url)],
            ),
            "graceful-1",
        )
        first = start(PERDURE_LEASE_TTL_S="30", PERDURE_HEARTBEAT_S="5")
        await asyncio.to_thread(tools.wait_for, labelled("t"))
        began = time.monotonic()
        first.signal(signal.SIGTERM)
        assert await asyncio.to_thread(first.wait) == 0
        start(PERDURE_LEASE_TTL_S="30", PERDURE_HEARTBEAT_S="5")
        await wait_status(api, run_id, {"finished"}, timeout=20)
        took = time.monotonic() - began

    assert took < 15, f"took {took:.1f}s: the lease was not handed back"
    assert Counter(c.arguments["label"] for c in tools.calls) == {"t": 1, "u": 1}
    assert pg.rows(database_url, "SELECT claims FROM runs") == [(2,)]


async def test_sigkill_during_approved_call__it_is_never_run_again(
    api: httpx.AsyncClient, database_url: str, tmp_path: Path
) -> None:
    """Guarantee 4: an approved call runs at most once. Its start is checkpointed before
    it runs; the worker dies during it; the resumed run records `interrupted` instead."""
    call_log = tmp_path / "model.log"
    with tool_server() as tools, workers(tmp_path, database_url, call_log) as start:
        gated = {**http_tool("pay", tools.url), "needs_approval": True}
        run_id = await define_and_send(
            api,
            agent(
                "once",
                [calls(("pay", {"label": "p", "hold": True})), {"text": "checked"}],
                [gated],
            ),
            "once-1",
        )
        first = start()
        run = await wait_status(api, run_id, {"awaiting_approval"}, timeout=30)
        approval = run["pending_approvals"][0]["id"]
        decided = await api.post(f"/v1/approvals/{approval}/decision", json={"approved": True})
        assert decided.status_code == 200
        await asyncio.to_thread(tools.wait_for, labelled("p"))
        assert pg.rows(database_url, "SELECT status FROM tool_calls") == [("running",)]
        first.kill()  # SIGKILL during the approved call
        start()
        done = await wait_status(api, run_id, {"finished"}, timeout=30)

    assert done["output"] == "checked"
    assert len(tools.calls) == 1, "an approved call must not run twice"
    status, result = pg.rows(database_url, "SELECT status, result FROM tool_calls")[0]
    assert status == "interrupted"
    assert result["error"] == "interrupted"


async def test_sigkill__runs_are_taken_over_long_before_the_lease_expires(
    api: httpx.AsyncClient, database_url: str, tmp_path: Path
) -> None:
    """Fast takeover: a dead worker's connection drops, and with it its liveness lock, so
    another worker takes its runs in about a poll interval, not a 30 s lease."""
    call_log = tmp_path / "model.log"
    with tool_server() as tools, workers(tmp_path, database_url, call_log) as start:
        run_id = await define_and_send(
            api,
            agent(
                "fast",
                [calls(("fx", {"label": "f", "hold": True})), {"text": "done"}],
                [http_tool("fx", tools.url)],
            ),
            "fast-1",
        )
        slow_lease = {"PERDURE_LEASE_TTL_S": "30", "PERDURE_HEARTBEAT_S": "5"}
        first = start(**slow_lease)
        await asyncio.to_thread(tools.wait_for, labelled("f"))
        start(**slow_lease)
        first.kill()
        killed = time.monotonic()
        await asyncio.to_thread(tools.wait_for, lambda seen: len(seen) == 2, 20)
        took = time.monotonic() - killed
        done = await wait_status(api, run_id, {"finished"}, timeout=20)

    assert took < 10, f"takeover took {took:.1f}s"
    assert done["output"] == "done"
    assert [c.token for c in tools.calls] == sorted({c.token for c in tools.calls})


async def test_sigstop__a_live_but_stalled_worker_keeps_its_runs_until_the_lease_expires(
    api: httpx.AsyncClient, database_url: str, tmp_path: Path
) -> None:
    """The liveness lock is only a hint of death: a stopped process still holds its
    connection, so nobody takes its run before the lease really expires."""
    call_log = tmp_path / "model.log"
    with tool_server() as tools, workers(tmp_path, database_url, call_log) as start:
        await define_and_send(
            api,
            agent(
                "stall",
                [calls(("fx", {"label": "s", "hold": True})), {"text": "done"}],
                [http_tool("fx", tools.url)],
            ),
            "stall-1",
        )
        lease = {"PERDURE_LEASE_TTL_S": "6", "PERDURE_HEARTBEAT_S": "1"}
        stalled = start(**lease)
        await asyncio.to_thread(tools.wait_for, labelled("s"))
        stalled.signal(signal.SIGSTOP)
        stopped = time.monotonic()
        start(**lease)
        await asyncio.to_thread(tools.wait_for, lambda seen: len(seen) == 2, 30)
        took = time.monotonic() - stopped
        stalled.signal(signal.SIGCONT)

    assert took >= 4.5, f"taken over after {took:.1f}s, before the lease could expire"
