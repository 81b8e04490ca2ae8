"""Crash torture: many runs, real `perdure worker` processes killed and frozen at random,
approvals decided by a background actor, and a checker that compares what happened (the
tool server's effects, the scripted model's call log) with what Postgres recorded.

Used by tests/torture/test_torture.py (a short CI run), tests/torture/test_pg_restart.py
(the checker) and tests/torture/soak.py (long runs by command). Everything random comes
from one seed, which is printed first so a failure can be replayed (the plan of agents,
sessions and faults replays exactly; the timing of a 2-core machine does not).

The invariants checked (docs: RELIABILITY.md, DESIGN.md §11):

- I1 every tool call has exactly one result; I2 results in call order, right after their
  turn; the transcript has one system message and new input only after results;
- I3 no recorded result ran again: a call's recorded result comes from its *last*
  effect; a call with several effects is an at-least-once re-run (its worker died, or lost
  the database, before the result was recorded), and each re-run carries a newer token;
- I4 an approved call ran at most once (`ok` means exactly once, `interrupted` 0 or 1),
  a rejected one never;
- I5 no model turn recorded twice: the k-th assistant turn of a session is the script's
  k-th reply, and every recorded turn was really generated (the call log says so);
- I7 no two workers held a run at once: the effects of one run made under different
  lease tokens never overlap in time, and tokens only grow. An overlap with an attempt
  whose caller was already gone (killed, or it cancelled the request) is no second
  holder: such overlaps are listed (fast takeover makes them common), not violations;
- nothing acknowledged is lost: every run that got a 2xx exists and finished, every
  decision that got a 2xx is recorded as decided.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import select
import signal
import socket
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Coroutine, Iterator
from contextlib import AsyncExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from app.domain.principal import DEFAULT_TENANT
from app.tools.base import idempotency_key
from tests import pg
from tests.crash.harness import (
    ToolCallSeen,
    ToolServer,
    Worker,
    model_calls,
    serving,
    workers,
)
from tests.fake_http import Reply, Seen
from tests.support import define

SETTLED = ("ok", "error", "cancelled", "interrupted", "rejected")
LEASE_TTL_S = 3.0  # what tests.crash.harness.worker_env gives the workers
INSTRUCTIONS = "SYSTEM"


def say(line: str) -> None:
    """Progress and summaries (pytest shows them with -s, or on failure)."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


# -- the tool server -----------------------------------------------------------------------


@dataclass
class EffectServer(ToolServer):
    """The crash harness's counting tool server, which also notes the calls whose caller
    was gone (killed, or it cancelled the request) by the time the tool finished."""

    abandoned: set[tuple[str, int]] = field(default_factory=set)  # (key, attempt)

    def respond(self, request: Seen) -> Reply | None:
        reply = super().respond(request)
        connection = request.connection
        if reply is not None and connection is not None and caller_gone(connection):
            with self.lock:
                self.abandoned.add((reply.body["key"], reply.body["attempt"]))
        return reply


def caller_gone(connection: socket.socket) -> bool:
    """The peer closed its end (a FIN is waiting) or reset it: nobody reads our answer."""
    try:
        readable, _, _ = select.select([connection], [], [], 0)
        return bool(readable) and connection.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


@contextmanager
def effect_server() -> Iterator[EffectServer]:
    """A tool server that records every effect (see tests/crash/harness.py ToolServer).

    Every call is recorded with its Idempotency-Key (the tool_call_id), run, lease token,
    attempt number for that key, and start/end times; the reply carries the attempt
    number, so the recorded result says which attempt produced it.
    """
    with serving(EffectServer()) as state:
        yield state


# -- what the runs do ----------------------------------------------------------------------


@dataclass(frozen=True)
class AgentPlan:
    id: str
    body: dict[str, Any]

    @property
    def script(self) -> list[dict[str, Any]]:
        script: list[dict[str, Any]] = self.body["model"]["script"]
        return script

    def reply_at(self, position: int) -> dict[str, Any]:
        """What the scripted model answers at a position (past the end: the last text)."""
        if position < len(self.script):
            return self.script[position]
        return [r for r in self.script if not r.get("tool_calls")][-1]


def tool_defs(url: str) -> list[dict[str, Any]]:
    executor = {"type": "http", "url": url, "timeout_s": 30}
    return [
        {"name": "fx", "input_schema": {"type": "object"}, "executor": executor},
        {
            "name": "pay",
            "input_schema": {"type": "object"},
            "needs_approval": True,
            "executor": executor,
        },
    ]


def make_agent(
    rng: random.Random,
    agent_id: str,
    url: str,
    *,
    approvals: bool = True,
    slow: tuple[float, float] = (0.3, 1.0),
    slow_chance: float = 0.3,
    segments: int = 2,
    turns: tuple[int, int] = (1, 3),
    width: tuple[int, int] = (1, 4),
) -> AgentPlan:
    """A scripted agent: per segment 1-3 (`turns`) tool turns of 1-4 (`width`) calls, then a
    text reply.

    Calls are fast (≤ 50 ms) or slow (`slow` seconds, 30 %); 20 % need approval. Slow calls
    stay well under the lease (3 s) minus a heartbeat, so a healthy worker's call always
    ends before anyone could take its run over: an overlap is then a real double holder.
    Each segment ends a run; a session's second run continues with the next segment.
    """
    script: list[dict[str, Any]] = []
    for segment in range(1, segments + 1):
        for _ in range(rng.randint(*turns)):
            position = len(script)
            turn = []
            for idx in range(rng.randint(*width)):
                gated = approvals and rng.random() < 0.2
                sleep = (
                    round(rng.uniform(*slow), 2)
                    if rng.random() < slow_chance
                    else round(rng.uniform(0, 0.05), 3)
                )
                turn.append(
                    {
                        "name": "pay" if gated else "fx",
                        "arguments": {"label": f"{agent_id}/p{position}/i{idx}", "sleep": sleep},
                    }
                )
            script.append({"tool_calls": turn})
        script.append({"text": f"{agent_id} done {segment}"})
    body = {
        "id": agent_id,
        "instructions": INSTRUCTIONS,
        "model": {"provider": "scripted", "script": script},
        "tools": tool_defs(url),
        "max_steps": 100,
        "tool_concurrency": rng.randint(2, 4),
    }
    return AgentPlan(agent_id, body)


@dataclass(frozen=True)
class SessionPlan:
    id: str
    agent: AgentPlan
    runs: int
    at: float  # seconds after the start of the torture


def plan_sessions(
    rng: random.Random, agents: list[AgentPlan], runs: int, spread_s: float, prefix: str = "t"
) -> list[SessionPlan]:
    """Sessions of one or two runs (30 % two), created spread over `spread_s` seconds."""
    plans: list[SessionPlan] = []
    total = 0
    while total < runs:
        count = 2 if rng.random() < 0.3 and runs - total >= 2 else 1
        at = round(rng.uniform(0, spread_s), 2) if plans else 0.0
        plans.append(SessionPlan(f"{prefix}-{len(plans)}", rng.choice(agents), count, at))
        total += count
    return sorted(plans, key=lambda p: p.at)


# -- what the API acknowledged -------------------------------------------------------------


@dataclass
class Acks:
    runs: dict[str, str] = field(default_factory=dict)  # run id -> session id
    decisions: dict[str, bool] = field(default_factory=dict)  # approval id -> approved
    errors: list[str] = field(default_factory=list)  # unexpected API answers


async def ask(
    acks: Acks, what: str, request: Coroutine[Any, Any, httpx.Response], timeout: float
) -> httpx.Response | None:
    """One API request that must answer in time; a hang or a raise (the in-process app
    re-raises what it answered 500 for) is recorded as an error and gives None."""
    try:
        return await asyncio.wait_for(request, timeout)
    except TimeoutError:
        acks.errors.append(f"{what}: no answer in {timeout}s (a hang)")
    except Exception as exc:
        acks.errors.append(f"{what}: raised {type(exc).__name__}: {exc} (a 500)")
    return None


async def send_run(
    api: httpx.AsyncClient,
    acks: Acks,
    session: str,
    agent_id: str,
    number: int,
    *,
    give_up_at: float,
    retry_on: tuple[int, ...] = (),
    timeout: float = 30.0,
) -> str | None:
    """Send a session's `number`-th run with an Idempotency-Key; retry while the session
    waits on an approval (409) or the API answers a status in `retry_on`."""
    while True:
        response = await ask(
            acks,
            f"send {session}#{number}",
            api.post(
                f"/v1/sessions/{session}/runs",
                json={"agent_id": agent_id, "input": f"go {number}"},
                headers={"Idempotency-Key": f"{session}-run-{number}"},
            ),
            timeout,
        )
        if response is None:
            return None
        if response.is_success:
            run_id: str = response.json()["id"]
            acks.runs[run_id] = session
            return run_id
        code = response.json().get("code") if response.content else None
        retryable = code == "SESSION_AWAITING_APPROVAL" or response.status_code in retry_on
        if not retryable:
            acks.errors.append(f"send {session}#{number}: {response.status_code} {response.text}")
            return None
        if time.monotonic() > give_up_at:
            return None
        await asyncio.sleep(0.3)


def decides_to_approve(seed: int, session: str, label: str) -> bool:
    """The approver's choice for one call: ~80 % approved, the same for one seed."""
    return random.Random(f"{seed}:{session}:{label}").random() < 0.8


def unavailable_problem(response: httpx.Response) -> bool:
    """A 503 `application/problem+json` with code DATABASE_UNAVAILABLE."""
    if response.status_code != 503:
        return False
    if not response.headers.get("content-type", "").startswith("application/problem+json"):
        return False
    body = response.json()
    return isinstance(body, dict) and body.get("code") == "DATABASE_UNAVAILABLE"


async def approver(
    api: httpx.AsyncClient,
    acks: Acks,
    seed: int,
    stop: asyncio.Event,
    *,
    outage: bool = False,
    timeout: float = 30.0,
) -> None:
    """A human at the approval UI: polls the queue and decides what it finds.

    Any answer but a 2xx is an error; during an `outage`, a 503 DATABASE_UNAVAILABLE
    problem is expected too, and the approval is decided again on a later round.
    """

    def unexpected(what: str, response: httpx.Response) -> None:
        if not (outage and unavailable_problem(response)):
            acks.errors.append(f"{what}: {response.status_code} {response.text[:300]}")

    while not stop.is_set():
        page = await ask(
            acks,
            "GET /v1/approvals",
            api.get("/v1/approvals", params={"status": "pending", "limit": 500}),
            timeout,
        )
        if page is None:
            await asyncio.sleep(0.25)
            continue
        if page.status_code != 200:
            unexpected("GET /v1/approvals", page)
            await asyncio.sleep(0.25)
            continue
        for item in page.json()["items"]:
            if item["id"] in acks.decisions:
                continue
            label = str(item["arguments"].get("label"))
            approved = decides_to_approve(seed, item["session_id"], label)
            body = {"approved": approved, "reason": None if approved else "torture: no"}
            decided = await ask(
                acks,
                f"decision {item['id']}",
                api.post(f"/v1/approvals/{item['id']}/decision", json=body),
                timeout,
            )
            if decided is None:
                continue
            if decided.status_code == 200:
                acks.decisions[item["id"]] = approved
            else:
                unexpected(f"decision {item['id']}", decided)
        await asyncio.sleep(0.25)


# -- the checker ---------------------------------------------------------------------------


@dataclass
class Verdict:
    violations: list[str] = field(default_factory=list)
    reruns: list[str] = field(default_factory=list)  # at-least-once re-runs, described
    regenerations: list[str] = field(default_factory=list)  # model calls made twice
    # A re-run that started while the abandoned attempt of a gone holder was still running
    # at the tool (possible when a dead worker's run is taken over before its call ends).
    abandoned_overlaps: list[str] = field(default_factory=list)
    stats: Counter[str] = field(default_factory=Counter)


@dataclass(frozen=True)
class CallRow:
    session_id: str
    tool_call_id: str
    seq: int
    message_seq: int
    idx: int
    name: str
    arguments: Any
    status: str
    result: Any
    approval_id: str | None
    run_id: str


def key_of(call: CallRow) -> str:
    """The Idempotency-Key the tool server saw for this call (the harness runs open)."""
    return idempotency_key(DEFAULT_TENANT, call.session_id, call.tool_call_id)


def check(
    database_url: str,
    tools: EffectServer,
    call_log: Path,
    agents: dict[str, AgentPlan],
    acks: Acks,
    *,
    faulted_pids: set[int] | None = None,
    every_decision_acked: bool = True,
) -> Verdict:
    """Check every invariant after a drain; return what broke and what happened.

    `every_decision_acked`: every decided approval got a 2xx (false when an outage could
    make a committed decision answer 503).
    """
    verdict = Verdict()
    bad = verdict.violations.append
    stats = verdict.stats
    with tools.lock:
        effects = list(tools.calls)
        abandoned = set(tools.abandoned)

    runs = pg.rows(
        database_url,
        "SELECT r.id::text, r.session_id, r.status, r.steps, r.usage, r.claims, s.agent_id, "
        "r.last_error, r.lease_owner, r.lease_expires_at < clock_timestamp() "
        "FROM runs r JOIN sessions s ON s.id = r.session_id",
    )
    messages = pg.rows(
        database_url, "SELECT session_id, seq, role, content FROM messages ORDER BY session_id, seq"
    )
    calls = [
        CallRow(*r)
        for r in pg.rows(
            database_url,
            "SELECT session_id, tool_call_id, seq, message_seq, idx, name, arguments, status, "
            "result, approval_id::text, run_id::text FROM tool_calls ORDER BY session_id, seq",
        )
    ]
    approvals = {
        r[0]: (r[1], r[2])
        for r in pg.rows(database_url, "SELECT id::text, status, decision FROM approvals")
    }

    # -- runs: every acknowledged one exists and finished ----------------------------------
    by_id = {r[0]: r for r in runs}
    stats["runs"] = len(runs)
    stats["claims"] = sum(r[5] for r in runs)
    for run_id, session in acks.runs.items():
        run = by_id.get(run_id)
        if run is None:
            bad(f"lost: run {run_id} of {session} got a 2xx but is not in the database")
        elif run[2] != "finished":
            bad(
                f"run {run_id} of {session} is {run[2]}, not finished (last_error={run[7]}, "
                f"lease_owner={run[8]}, lease expired={run[9]}, claims={run[5]})"
            )
    agent_of = {r[1]: r[6] for r in runs}
    runs_of: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
    for run in runs:
        runs_of[run[1]].append(run)

    # -- the transcript of every session ----------------------------------------------------
    messages_of: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
    for m in messages:
        messages_of[m[0]].append(m)
    calls_of: dict[str, list[CallRow]] = defaultdict(list)
    for c in calls:
        calls_of[c.session_id].append(c)
    # Effects are keyed by what the tool server saw: the call's Idempotency-Key.
    call_by_key = {key_of(c): c for c in calls}
    recorded_turns: dict[str, int] = {}
    for session in sorted(set(messages_of) | set(calls_of)):
        agent = agents.get(agent_of.get(session, ""))
        if agent is None:
            bad(f"{session}: no agent plan for it")
            continue
        recorded_turns[session] = _check_transcript(
            session, agent, messages_of[session], calls_of[session], runs_of[session], bad
        )
    stats["model_turns"] = sum(recorded_turns.values())
    stats["tool_calls"] = len(calls)

    # -- effects against results (I1, I3, I4) -----------------------------------------------
    effects_of: dict[str, list[ToolCallSeen]] = defaultdict(list)
    for effect in effects:
        effects_of[effect.key].append(effect)
    stats["effects"] = len(effects)
    for key in effects_of:
        if key not in call_by_key:
            bad(f"I3: effect for {key}, a call the database never recorded")
    for call in calls:
        seen = sorted(effects_of.get(key_of(call), []), key=lambda e: e.started)
        where = f"{call.session_id} {call.name} {call.arguments.get('label')} ({call.tool_call_id})"
        if call.status not in SETTLED or call.result is None:
            bad(f"I1: {where} has no result (status {call.status})")
            continue
        stats[f"calls_{call.status}"] += 1
        if call.approval_id is None:
            _check_plain_call(call, seen, where, verdict)
        else:
            approval = approvals.get(call.approval_id)
            _check_gated_call(call, seen, where, approval, verdict)

    # -- decisions: every acknowledged one is recorded ---------------------------------------
    for approval_id, approved in acks.decisions.items():
        status, decision = approvals.get(approval_id, (None, None))
        want = "approved" if approved else "rejected"
        if status != want or not decision or decision.get("approved") is not approved:
            bad(f"lost decision: approval {approval_id} got a 2xx {want} but is {status}")
    for approval_id, (status, _) in approvals.items():
        if status not in ("approved", "rejected"):
            bad(f"approval {approval_id} is {status}: every one was to be decided")
        elif every_decision_acked and approval_id not in acks.decisions:
            bad(f"approval {approval_id} is {status}, but nobody's decision was acknowledged")
    stats["approvals"] = len(approvals)

    # -- one holder at a time (I7) -----------------------------------------------------------
    per_run: dict[str, list[ToolCallSeen]] = defaultdict(list)
    for effect in effects:
        per_run[effect.run_id].append(effect)
    for run_id, seen in per_run.items():
        _check_one_holder(run_id, seen, abandoned, verdict)

    # -- model calls (I5) --------------------------------------------------------------------
    made: dict[tuple[str, int], list[int]] = defaultdict(list)
    for line in model_calls(call_log):
        made[(line["session_id"], int(line["position"]))].append(int(line["pid"]))
    stats["model_calls"] = sum(len(p) for p in made.values())
    for (session, position), pids in sorted(made.items()):
        if position >= recorded_turns.get(session, 0):
            bad(f"I5: model call for {session} position {position}, never recorded")
        if len(pids) > 1:
            unexplained = faulted_pids is not None and any(p not in faulted_pids for p in pids[:-1])
            verdict.regenerations.append(
                f"{session} position {position}: generated {len(pids)}x by pids {pids}"
                + (" (an earlier caller was never killed or stopped)" if unexplained else "")
            )
    for session, count in recorded_turns.items():
        for position in range(count):
            if (session, position) not in made:
                bad(f"I5: {session} turn {position} is recorded but the model never made it")
    stats["abandoned_overlaps"] = len(verdict.abandoned_overlaps)
    stats["regenerations"] = len(verdict.regenerations)
    stats["reruns"] = len(verdict.reruns)
    return verdict


def _check_transcript(
    session: str,
    agent: AgentPlan,
    messages: list[tuple[Any, ...]],
    calls: list[CallRow],
    runs: list[tuple[Any, ...]],
    bad: Callable[[str], None],
) -> int:
    """I1, I2, I5 on one session's log; returns how many model turns it records."""
    entries: list[tuple[int, str, Any]] = [(m[1], "message", m) for m in messages]
    entries += [(c.seq, "call", c) for c in calls]
    entries.sort(key=lambda e: e[0])
    seqs = [e[0] for e in entries]
    if seqs != list(range(1, len(seqs) + 1)):
        bad(f"I2: {session}: transcript seqs are not 1..n: {seqs}")
        return 0
    roles = [m[2] for m in messages]
    if roles.count("system") != 1 or roles[0] != "system":
        bad(f"I2: {session}: one system message first, got roles {roles}")
    if roles.count("user") != len(runs):
        bad(f"{session}: {roles.count('user')} user messages for {len(runs)} runs")
    claimed: set[str] = set()
    position = 0
    i = 0
    while i < len(entries):
        _, kind, entry = entries[i]
        i += 1
        if kind == "call":
            bad(f"I2: {session}: call {entry.tool_call_id} is not right after its turn")
            continue
        if entry[2] != "assistant":
            continue
        content = entry[3]
        ids: list[str] = list(content.get("tool_call_ids", []))
        turn = [e[2] for e in entries[i : i + len(ids)] if e[1] == "call"]
        if [c.tool_call_id for c in turn] != ids:
            bad(f"I2: {session} turn {position}: calls {ids} do not follow it in order")
        for idx, call in enumerate(turn):
            if call.message_seq != entry[1] or call.idx != idx:
                bad(f"I2: {session}: call {call.tool_call_id} has the wrong turn or index")
        claimed.update(ids)
        expected = agent.reply_at(position)
        want = [(c["name"], c["arguments"]) for c in expected.get("tool_calls", [])]
        got = [(c.name, c.arguments) for c in turn]
        if want != got or (not want and content.get("text") != expected.get("text")):
            bad(
                f"I5: {session} turn {position} is not the script's reply at {position}: "
                f"{content} / {got} vs {expected}"
            )
        position += 1
        i += len(turn)
    for call in calls:
        if call.tool_call_id not in claimed:
            bad(f"I2: {session}: call {call.tool_call_id} belongs to no turn")
    steps = sum(r[3] for r in runs)
    model_calls_used = sum(int((r[4] or {}).get("model_calls", 0)) for r in runs)
    if steps != position or model_calls_used != position:
        bad(
            f"I5: {session}: {position} turns recorded, but runs count {steps} steps "
            f"and {model_calls_used} model calls"
        )
    return position


def _check_plain_call(
    call: CallRow, seen: list[ToolCallSeen], where: str, verdict: Verdict
) -> None:
    bad = verdict.violations.append
    if call.status != "ok":
        bad(f"{where}: unexpected result {call.status}: {call.result}")
        return
    if not seen:
        bad(f"I3: {where}: an ok result but the tool never saw the call")
        return
    attempt = call.result.get("attempt") if isinstance(call.result, dict) else None
    if attempt != len(seen) or call.result.get("key") != key_of(call):
        bad(
            f"I3: {where}: the recorded result is from attempt {attempt}, but the tool saw "
            f"{len(seen)} (a call ran after its result was recorded)"
        )
    tokens = [e.token for e in seen]
    if len(seen) > 1:
        verdict.reruns.append(
            f"{where}: {len(seen)} effects, tokens {tokens}, recorded attempt {attempt}"
        )
        if any(b <= a for a, b in itertools.pairwise(tokens)):
            bad(f"I3/I7: {where}: effects under tokens {tokens} (a re-run under an old lease)")


def _check_gated_call(
    call: CallRow,
    seen: list[ToolCallSeen],
    where: str,
    approval: tuple[str, Any] | None,
    verdict: Verdict,
) -> None:
    bad = verdict.violations.append
    status = approval[0] if approval else None
    if status == "approved":
        verdict.stats["approved_calls"] += 1
        if len(seen) > 1:
            bad(f"I4: approved {where} ran {len(seen)} times (tokens {[e.token for e in seen]})")
        elif call.status == "ok":
            if len(seen) != 1 or call.result.get("attempt") != 1:
                bad(f"I4: approved {where}: ok result {call.result} with {len(seen)} effects")
        elif call.status == "interrupted":
            verdict.stats["interrupted_effects_" + str(len(seen))] += 1
            if call.result.get("error") != "interrupted":
                bad(f"I4: {where}: interrupted with result {call.result}")
        else:
            bad(f"I4: approved {where} ended {call.status}: {call.result}")
    elif status == "rejected":
        verdict.stats["rejected_calls"] += 1
        if seen:
            bad(f"I4: rejected {where} ran {len(seen)} times")
        if call.status != "rejected" or call.result.get("error") != "rejected":
            bad(f"I4: rejected {where} has result {call.status} {call.result}")
    else:
        bad(f"{where}: its approval is {status}, and the call ended {call.status}")


def _check_one_holder(
    run_id: str, seen: list[ToolCallSeen], abandoned: set[tuple[str, int]], verdict: Verdict
) -> None:
    """I7 from the tool's side: tokens only grow, and no holder's effect overlaps a newer
    holder's. An overlap with an effect its caller had abandoned (the worker was killed, or
    cancelled the request) is no second holder: it is listed, not counted as a violation."""
    bad = verdict.violations.append
    ordered = sorted(seen, key=lambda e: e.started)
    for earlier, later in itertools.pairwise(ordered):
        if later.token < earlier.token:
            bad(
                f"I7: run {run_id}: an effect under token {later.token} started after one "
                f"under {earlier.token} ({later.arguments.get('label')}): a stale holder acted"
            )
    for a in ordered:
        during = [
            b
            for b in ordered
            if a.token < b.token and b.started < (a.ended if a.ended is not None else 1e18)
        ]
        if not during:
            continue
        overlap = (
            f"run {run_id}: {a.arguments.get('label')} (token {a.token}, at the tool "
            f"{a.started:.2f}-{a.ended or 0:.2f}) overlaps {len(during)} calls of tokens "
            f"{sorted({b.token for b in during})}: {[b.arguments.get('label') for b in during][:4]}"
        )
        if (a.key, a.attempt) in abandoned:
            same = any(b.key == a.key for b in during)
            verdict.abandoned_overlaps.append(
                overlap
                + "; its caller was gone"
                + (", and its re-run (same Idempotency-Key) ran concurrently" if same else "")
            )
        else:
            bad(f"I7: {overlap}, and its caller was still there to read the answer")


# -- waiting on the database -------------------------------------------------------------


async def unfinished(url: str) -> list[tuple[Any, ...]]:
    """The runs not finished, with their lease: who holds it, for how long yet."""
    return await pg.arows(
        url,
        "SELECT id::text, status, lease_owner, "
        "round(extract(epoch FROM lease_expires_at - clock_timestamp())::numeric, 1) "
        "AS lease_left_s, claims, "
        "round(extract(epoch FROM clock_timestamp() - updated_at)::numeric, 1) AS idle_s "
        "FROM runs WHERE status <> 'finished' ORDER BY updated_at",
    )


async def wait_until_done(url: str, acks: Acks, timeout: float) -> float:
    """Seconds until every acknowledged run finished and no approval waits; fails at once
    when one of them ended otherwise (failed, cancelled: nothing here should)."""
    began = time.monotonic()
    while True:
        left = await pg.arows(
            url,
            "SELECT id::text, status, last_error FROM runs WHERE id::text = ANY(%s) "
            "AND status <> 'finished'",
            list(acks.runs),
        )
        ended = [r for r in left if r[1] in ("failed", "cancelled")]
        if ended:
            raise AssertionError(f"runs ended but did not finish: {ended}")
        waiting = await pg.arows(url, "SELECT count(*) FROM approvals WHERE status = 'pending'")
        if not left and waiting[0][0] == 0:
            return time.monotonic() - began
        if time.monotonic() - began > timeout:
            raise AssertionError(f"runs not done in {timeout:.0f}s: {await unfinished(url)}")
        await asyncio.sleep(0.1)


async def seconds_until_progress(
    url: str, run_ids: list[str], since: Any, timeout: float
) -> tuple[float, list[tuple[Any, ...]]]:
    """Seconds until every run of `run_ids` is no longer `running` without a checkpoint
    written after `since` (a heartbeat does not count: it leaves `updated_at` alone).
    Gives up after `timeout` (also counting `LEASE_TTL_S` + 4 s as the bound for the
    caller), returning the runs still stalled then."""
    began = time.monotonic()
    while True:
        stalled = await pg.arows(
            url,
            "SELECT id::text, lease_owner, "
            "round(extract(epoch FROM lease_expires_at - clock_timestamp())::numeric, 1) "
            "AS lease_left_s, claims FROM runs WHERE id::text = ANY(%s) "
            "AND status = 'running' AND updated_at < %s",
            run_ids,
            since,
        )
        took = time.monotonic() - began
        if not stalled or took > min(timeout, LEASE_TTL_S + 4):
            return took, stalled
        await asyncio.sleep(0.1)


async def wait_owner_holds(database_url: str, worker: Worker, count: int) -> str:
    deadline = time.monotonic() + 30
    while True:
        held = await pg.arows(
            database_url,
            "SELECT lease_owner, count(*) FROM runs WHERE status = 'running' "
            "AND lease_owner LIKE %s GROUP BY lease_owner",
            f"%:{worker.pid}:%",
        )
        if held and held[0][1] >= count:
            return str(held[0][0])
        assert time.monotonic() < deadline, f"the worker holds {held}"
        await asyncio.sleep(0.1)


# -- the torture ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TortureConfig:
    seed: int
    seconds: float = 45.0  # how long faults are injected
    workers: int = 3
    runs: int = 80
    agents: int = 8
    kill_every: tuple[float, float] = (0.5, 2.0)
    stop_chance: float = 0.15  # of a fault being a SIGSTOP past the lease, not a SIGKILL
    drain_s: float = 90.0  # how long the workers get to finish once the faults stop
    worker_concurrency: int = 8
    # Kills here are random, every second or so: an innocent run driven alone (a suspect,
    # after its worker died) may see its worker killed several times before its first
    # save. No run here is poison (tests/crash/test_poison.py has one), so none may fail.
    poison_max_deaths: int = 1000


@dataclass
class TortureReport:
    seed: int
    verdict: Verdict
    kills: int = 0
    stops: int = 0
    runs_sent: int = 0
    drained_s: float = 0.0
    elapsed_s: float = 0.0

    def summary(self) -> str:
        s = self.verdict.stats
        return (
            f"torture seed={self.seed}: runs={self.runs_sent} kills={self.kills} "
            f"stops={self.stops} re-runs={len(self.verdict.reruns)} "
            f"overlaps-with-abandoned={len(self.verdict.abandoned_overlaps)} "
            f"regenerations={len(self.verdict.regenerations)} tool_calls={s['tool_calls']} "
            f"effects={s['effects']} approved={s['approved_calls']} "
            f"rejected={s['rejected_calls']} interrupted={s['calls_interrupted']} "
            f"claims={s['claims']} drained_in={self.drained_s:.1f}s "
            f"elapsed={self.elapsed_s:.1f}s violations={len(self.verdict.violations)}"
        )

    def details(self, limit: int = 40) -> str:
        lines = [self.summary()]
        lines += [f"  re-run (at-least-once): {r}" for r in self.verdict.reruns[:limit]]
        lines += [f"  regenerated: {r}" for r in self.verdict.regenerations[:limit]]
        lines += [
            f"  overlap with an abandoned call: {r}"
            for r in self.verdict.abandoned_overlaps[:limit]
        ]
        lines += [f"  VIOLATION: {v}" for v in self.verdict.violations[:limit]]
        if len(self.verdict.violations) > limit:
            lines.append(f"  ... and {len(self.verdict.violations) - limit} more violations")
        return "\n".join(lines)


@dataclass
class Fleet:
    """The worker processes: a fixed number alive, some killed or frozen on the way."""

    start: Callable[..., Worker]
    size: int
    env: dict[str, str]
    alive: list[Worker] = field(default_factory=list)
    frozen: set[int] = field(default_factory=set)
    faulted: set[int] = field(default_factory=set)
    kills: int = 0
    stops: int = 0

    def fill(self) -> None:
        self.alive = [w for w in self.alive if w.process.poll() is None]
        while len(self.alive) < self.size:
            self.alive.append(self.start(**self.env))

    async def kill_one(self, rng: random.Random) -> None:
        candidates = [w for w in self.alive if w.pid not in self.frozen]
        if not candidates:
            return
        victim = rng.choice(candidates)
        self.faulted.add(victim.pid)
        await asyncio.to_thread(victim.kill)
        self.kills += 1
        self.fill()

    async def freeze_one(self, rng: random.Random, pause_s: float) -> None:
        """SIGSTOP a worker past its lease, then SIGCONT it: a zombie that wakes up."""
        candidates = [w for w in self.alive if w.pid not in self.frozen]
        if not candidates:
            return
        victim = rng.choice(candidates)
        self.faulted.add(victim.pid)
        self.frozen.add(victim.pid)
        self.stops += 1
        victim.signal(signal.SIGSTOP)
        try:
            await asyncio.sleep(pause_s)
        finally:
            victim.signal(signal.SIGCONT)
            self.frozen.discard(victim.pid)


async def killer(fleet: Fleet, rng: random.Random, config: TortureConfig, until: float) -> None:
    freezes: set[asyncio.Task[None]] = set()
    try:
        while True:
            await asyncio.sleep(rng.uniform(*config.kill_every))
            if time.monotonic() >= until:
                break
            if rng.random() < config.stop_chance and not fleet.frozen:
                pause = rng.uniform(LEASE_TTL_S + 0.5, LEASE_TTL_S + 2.5)
                task = asyncio.create_task(fleet.freeze_one(rng, pause))
                freezes.add(task)
                task.add_done_callback(freezes.discard)
            else:
                await fleet.kill_one(rng)
    finally:
        for task in list(freezes):
            task.cancel()
        await asyncio.gather(*freezes, return_exceptions=True)


async def define_agents(api: httpx.AsyncClient, agents: list[AgentPlan]) -> None:
    for plan in agents:
        await define(api, plan.body)


async def wait_drained(
    database_url: str, senders: list[asyncio.Task[Any]], timeout: float
) -> str | None:
    """Wait until every send is done and every run is terminal; None, or what is left."""
    deadline = time.monotonic() + timeout
    while True:
        left = await pg.arows(
            database_url,
            "SELECT status, count(*) FROM runs WHERE status NOT IN "
            "('finished', 'failed', 'cancelled') GROUP BY status",
        )
        if not left and all(t.done() for t in senders):
            return None
        if time.monotonic() > deadline:
            return f"not drained in {timeout:.0f}s: {left}, senders done: " + str(
                all(t.done() for t in senders)
            )
        await asyncio.sleep(0.5)


async def torture(
    api: httpx.AsyncClient, database_url: str, tmp: Path, config: TortureConfig
) -> TortureReport:
    """Run the whole torture against a migrated database and an API with no worker pool."""
    began = time.monotonic()
    say(f"torture: seed={config.seed} (replay: PERDURE_TORTURE_SEED={config.seed}) {config}")
    plan_rng = random.Random(f"plan:{config.seed}")
    fault_rng = random.Random(f"faults:{config.seed}")
    call_log = tmp / "model-calls.log"
    acks = Acks()
    report = TortureReport(config.seed, Verdict())
    env = {
        "PERDURE_WORKER_CONCURRENCY": str(config.worker_concurrency),
        "PERDURE_POISON_MAX_DEATHS": str(config.poison_max_deaths),
    }
    async with AsyncExitStack() as stack:
        tools = stack.enter_context(effect_server())
        start = stack.enter_context(workers(tmp, database_url, call_log))
        agents = [make_agent(plan_rng, f"a{i}", tools.url) for i in range(config.agents)]
        await define_agents(api, agents)
        sessions = plan_sessions(plan_rng, agents, config.runs, config.seconds * 0.7)
        report.runs_sent = sum(s.runs for s in sessions)
        fleet = Fleet(start, config.workers, env)
        fleet.fill()

        t0 = time.monotonic()
        give_up_at = t0 + config.seconds + config.drain_s

        async def session_sender(plan: SessionPlan) -> None:
            await asyncio.sleep(max(0.0, t0 + plan.at - time.monotonic()))
            for number in range(plan.runs):
                await send_run(api, acks, plan.id, plan.agent.id, number, give_up_at=give_up_at)

        senders = [asyncio.create_task(session_sender(p)) for p in sessions]
        stop_approver = asyncio.Event()
        deciding = asyncio.create_task(approver(api, acks, config.seed, stop_approver))
        try:
            await killer(fleet, fault_rng, config, t0 + config.seconds)
            fleet.fill()
            say(
                f"torture: faults stopped after {time.monotonic() - t0:.1f}s "
                f"({fleet.kills} kills, {fleet.stops} stops); draining"
            )
            drain_began = time.monotonic()
            stuck = await wait_drained(database_url, senders, config.drain_s)
            report.drained_s = time.monotonic() - drain_began
        finally:
            stop_approver.set()
            for task in senders:
                task.cancel()
            await asyncio.gather(deciding, *senders, return_exceptions=True)
        report.kills, report.stops = fleet.kills, fleet.stops
        for worker in fleet.alive:
            worker.stop()
        verdict = await asyncio.to_thread(
            check,
            database_url,
            tools,
            call_log,
            {a.id: a for a in agents},
            acks,
            faulted_pids=fleet.faulted,
        )
    if stuck is not None:
        verdict.violations.insert(0, stuck)
    verdict.violations[:0] = [f"API: {e}" for e in acks.errors]
    report.verdict = verdict
    report.elapsed_s = time.monotonic() - began
    return report
