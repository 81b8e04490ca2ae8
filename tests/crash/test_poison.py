"""Poison runs (RELIABILITY.md test plan #10), with real worker processes: a run whose tool
SIGKILLs the worker running it must not take the fleet down for ever. It is failed as
`poison_run` after PERDURE_POISON_MAX_DEATHS deaths while driven alone; the runs that
shared its first worker finish, each of their calls run no more often than that one crash
explains; and resuming it (the operator's choice) retries it."""

from __future__ import annotations

import asyncio
import json
import signal
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests import pg
from tests.agents import agent, calls, http_tool, python_tool
from tests.conftest import wait_status
from tests.crash.harness import Worker, model_calls, tool_server, workers
from tests.support import define, queue

pytestmark = pytest.mark.timeout(120)

MAX_DEATHS = 3  # the default of PERDURE_POISON_MAX_DEATHS
FLEET = {"PERDURE_WORKER_CONCURRENCY": "4"}


@dataclass
class Fleet:
    """Keeps `size` workers alive, starting a new one for each that dies."""

    start: Callable[..., Worker]
    size: int
    env: dict[str, str]
    started: list[Worker] = field(default_factory=list)
    killed: list[Worker] = field(default_factory=list)  # died of SIGKILL

    def count_deaths(self) -> None:
        for worker in self.started:
            if worker.process.poll() == -signal.SIGKILL and worker not in self.killed:
                self.killed.append(worker)

    def fill(self) -> None:
        self.count_deaths()
        alive = [w for w in self.started if w.process.poll() is None]
        for _ in range(self.size - len(alive)):
            self.started.append(self.start(**self.env))


@asynccontextmanager
async def fleet(start: Callable[..., Worker], size: int, **env: str) -> AsyncIterator[Fleet]:
    kept = Fleet(start, size, {**FLEET, **env})
    stop = asyncio.Event()

    async def keep() -> None:
        while not stop.is_set():
            kept.fill()
            await asyncio.sleep(0.1)

    keeper = asyncio.create_task(keep())
    try:
        yield kept
    finally:
        stop.set()
        await keeper
        kept.count_deaths()  # the last ones; `workers` kills the survivors


def toxic_agent(kills: Path, cure: Path) -> dict[str, Any]:
    """One call to a tool that SIGKILLs its worker (until `cure` exists), then a reply."""
    arguments = {"log": str(kills), "cured": str(cure)}
    return agent(
        "toxic",
        [calls(("die", arguments)), {"text": "cured"}],
        [python_tool("die", "kill_worker")],
    )


def kill_log(kills: Path) -> list[dict[str, Any]]:
    if not kills.exists():
        return []
    return [json.loads(line) for line in kills.read_text().splitlines() if line]


def assert_poisoned(run: dict[str, Any], times: str) -> None:
    assert run["status"] == "failed", run
    error = run["last_error"]
    assert (error["code"], error["retryable"]) == ("poison_run", False), error
    assert f"killed its worker {times} while driven alone" in error["message"], error
    assert "resume it to try again" in error["message"], error


async def test_a_run_that_kills_its_worker__fails_as_poison__its_co_tenants_finish(
    api: httpx.AsyncClient, database_url: str, tmp_path: Path
) -> None:
    """Three runs are in flight (a call each, held at the tool server) on a worker when a
    fourth run's tool SIGKILLs it. All four are then suspect, each driven alone: the three
    re-run their interrupted call once and finish; the poison kills each worker that drives
    it, alone, until it is failed. No worker dies with an innocent run on board again."""
    call_log, kills, cure = tmp_path / "model.log", tmp_path / "kills.log", tmp_path / "cured"
    with tool_server() as tools, workers(tmp_path, database_url, call_log) as start:
        calm = agent(
            "calm",
            [calls(("fx", {"hold": 1})), calls(("fx", {})), {"text": "calm done"}],
            [http_tool("fx", tools.url)],
        )
        await define(api, calm)
        await define(api, toxic_agent(kills, cure))
        first = start(**FLEET)
        innocent = [await queue(api, f"calm-{i}", "calm") for i in range(3)]
        # All three have their first call in flight, at the tool, on `first`.
        await asyncio.to_thread(tools.wait_for, lambda seen: len(seen) == 3)
        poison = await queue(api, "toxic-1", "toxic")
        assert await asyncio.to_thread(first.wait) == -signal.SIGKILL
        tools.release(attempt=1)  # their caller is dead: nobody reads these answers

        async with fleet(start, 2) as kept:
            failed = await wait_status(api, poison, {"failed"}, timeout=60)
            finished = [await wait_status(api, r, {"finished"}, timeout=30) for r in innocent]

    assert_poisoned(failed, f"{MAX_DEATHS} times")
    assert [run["output"] for run in finished] == ["calm done"] * 3
    # The poison's tool ran on its first worker, then on MAX_DEATHS more, alone; each died.
    killings = kill_log(kills)
    assert len(killings) == 1 + MAX_DEATHS, killings
    assert killings[0]["pid"] == first.pid
    assert sorted(k["pid"] for k in killings[1:]) == sorted(w.pid for w in kept.killed)
    assert len({k["token"] for k in killings}) == len(killings), "a fresh claim each time"
    # Each innocent call ran as often as the one crash explains: the interrupted one twice
    # (its re-run has the same key), the next one once.
    for run_id in innocent:
        runs = Counter(c.key for c in tools.calls if c.run_id == run_id)
        assert sorted(runs.values()) == [1, 2], (run_id, runs)
    # No model turn was made twice, and the poison's only once (it died at its tool).
    made = Counter(c["session_id"] for c in model_calls(call_log))
    assert made == {"toxic-1": 1, **{f"calm-{i}": 3 for i in range(3)}}, made
    # The workers the poison killed drove nothing else: each innocent was claimed on the
    # first worker, then alone (a suspect) until its re-run call was saved, then handed
    # back and claimed once more to the end. A death on board would have cost it a claim.
    claims = await pg.arows(
        database_url, "SELECT claims FROM runs WHERE id = ANY(%s::uuid[])", innocent
    )
    assert [c for (c,) in claims] == [3, 3, 3], claims


async def test_resuming_a_poisoned_run__retries_it_with_a_fresh_count(
    api: httpx.AsyncClient, database_url: str, tmp_path: Path
) -> None:
    """Resume is the operator's choice, and gives the run a fresh count: resumed while its
    tool still kills, it is driven again (alone) and failed after as many deaths as the
    first time; resumed once the tool is fixed, it finishes."""
    call_log, kills, cure = tmp_path / "model.log", tmp_path / "kills.log", tmp_path / "cured"
    with workers(tmp_path, database_url, call_log) as start:
        await define(api, toxic_agent(kills, cure))
        poison = await queue(api, "toxic-2", "toxic")
        async with fleet(start, 2, PERDURE_POISON_MAX_DEATHS="2") as kept:
            assert_poisoned(await wait_status(api, poison, {"failed"}, timeout=60), "2 times")
            assert len(kill_log(kills)) == 1 + 2  # its first worker, then two alone

            resumed = await api.post(f"/v1/runs/{poison}/resume")
            assert resumed.status_code == 200, resumed.text
            assert resumed.json()["status"] == "queued"
            assert_poisoned(await wait_status(api, poison, {"failed"}, timeout=60), "2 times")
            assert len(kill_log(kills)) == 1 + 2 + 2  # two more, alone: a fresh count

            cure.touch()  # the operator fixed the tool
            resumed = await api.post(f"/v1/runs/{poison}/resume")
            assert resumed.status_code == 200, resumed.text
            done = await wait_status(api, poison, {"finished"}, timeout=30)

    assert (done["output"], done["last_error"]) == ("cured", None)
    assert len(kill_log(kills)) == 1 + 2 + 2 + 1
    assert len(kept.killed) == 1 + 2 + 2, "the cured retry killed nobody"
