"""The agent loop's order of effects (app/engine/loop.py), with no database.

The loop is driven directly with fakes at its boundaries: a journal that records each
CheckpointWrite, a control the test steers, a scripted model and a tool executor. All four
append to one trace, so a test reads the effects in the order they happened.
"""

from __future__ import annotations

import asyncio
import copy
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from app.api.schemas import SESSION_ID
from app.domain.agent import AgentDefinition, ToolSpec
from app.domain.principal import DEFAULT_TENANT
from app.domain.run import (
    CallStatus,
    CheckpointWrite,
    ChildRun,
    Entry,
    Message,
    RunState,
    RunStatus,
    ToolCall,
    Usage,
    child_session_id,
)
from app.engine.loop import AgentLoop, RetryPolicy, RunStopped, StopReason
from app.errors import LeaseLost
from app.providers.base import ModelError, ModelReply, ModelRequest, ProposedCall
from app.tools.base import ToolContext, ToolOutcome

pytestmark = pytest.mark.timeout(5)


# -- fakes -------------------------------------------------------------------------------


class Trace:
    """Every effect of the loop, in the order it happened."""

    def __init__(self) -> None:
        self.events: list[str] = []

    def saves(self) -> list[str]:
        return [e for e in self.events if e.startswith(("save", "write"))]


def describe(write: CheckpointWrite) -> str:
    """`save[status] ...` for a checkpoint, `write[status] ...` for run fields only."""
    parts = [f"{'save' if write.save else 'write'}[{write.status}]"]
    if write.messages:
        parts.append("msg:" + ",".join(m.role for m in write.messages))
    if write.calls:
        parts.append("calls:" + ",".join(c.id for c in write.calls))
    if write.settlements:
        parts.append("results:" + ",".join(s.tool_call_id for s in write.settlements))
    if write.approvals:
        parts.append("approvals:" + ",".join(a.tool_call_id for a in write.approvals))
    return " ".join(parts)


class FakeJournal:
    """The engine's Journal: records each write; from save number `refuse_from` on (1-based),
    raises LeaseLost as a fenced write that matched no row would."""

    def __init__(self, trace: Trace, refuse_from: int | None = None) -> None:
        self.trace = trace
        self.refuse_from = refuse_from
        self.writes: list[CheckpointWrite] = []
        self.attempts = 0

    async def save(self, write: CheckpointWrite) -> None:
        self.attempts += 1
        if self.refuse_from is not None and self.attempts >= self.refuse_from:
            self.trace.events.append("refused " + describe(write))
            raise LeaseLost("lease lost", run_id="test")
        await asyncio.sleep(0)  # a commit yields to the event loop, as a real one does
        # A copy: the engine appends the write's ToolCall objects to its state and settles
        # them in place later, so the write itself would not keep what was saved.
        self.writes.append(copy.deepcopy(write))
        self.trace.events.append(describe(write))

    def saved_call_ids(self) -> set[str]:
        return {c.id for w in self.writes for c in w.calls}


class FakeControl:
    """The engine's Control, steered by the test."""

    def __init__(self) -> None:
        self.lease_token = 7
        self.reason: StopReason | None = None
        self.is_draining = False
        self.enough_lease = True
        self._stopped = asyncio.Event()

    def stop(self, reason: StopReason) -> None:
        self.reason = reason
        self._stopped.set()

    def stop_reason(self) -> StopReason | None:
        return self.reason

    def draining(self) -> bool:
        return self.is_draining

    def lease_ok(self) -> bool:
        return self.enough_lease

    async def wait_stop(self) -> StopReason:
        await self._stopped.wait()
        assert self.reason is not None
        return self.reason


class FakeModel:
    """Replies from a list, in order; a ModelError in the list is raised instead."""

    def __init__(self, trace: Trace, script: list[ModelReply | ModelError]) -> None:
        self.trace = trace
        self.script = list(script)
        self.requests: list[ModelRequest] = []

    async def generate(self, request: ModelRequest) -> ModelReply:
        self.requests.append(request)
        self.trace.events.append(f"model #{request.position}")
        if not self.script:
            raise AssertionError("the model was called more often than scripted")
        step = self.script.pop(0)
        if isinstance(step, ModelError):
            raise step
        return step


class FakeTools:
    """Runs a call by sleeping `delays[call id]` seconds; records its start and end, and
    whether its call was already saved when it started."""

    def __init__(
        self,
        trace: Trace,
        journal: FakeJournal,
        delays: dict[str, float] | None = None,
    ) -> None:
        self.trace = trace
        self.journal = journal
        self.delays = delays or {}
        self.ran: list[str] = []
        self.saved_when_started: dict[str, bool] = {}
        self.contexts: list[ToolContext] = []

    async def execute(
        self, tool: ToolSpec, arguments: dict[str, Any], context: ToolContext
    ) -> ToolOutcome:
        call_id = context.tool_call_id
        self.ran.append(call_id)
        self.contexts.append(context)
        self.saved_when_started[call_id] = call_id in self.journal.saved_call_ids()
        self.trace.events.append(f"start {call_id}")
        await asyncio.sleep(self.delays.get(call_id, 0))
        self.trace.events.append(f"end {call_id}")
        return ToolOutcome(ok=True, result={"tool": tool.name, "arguments": arguments})


# -- builders ----------------------------------------------------------------------------


def tool(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "executor": {"type": "python", "path": "fake.tools:run"}, **extra}


def agent(*tools: dict[str, Any], concurrency: int = 4) -> AgentDefinition:
    return AgentDefinition.model_validate(
        {
            "instructions": "Be brief.",
            "model": {"provider": "scripted", "script": [{"text": "unused"}]},
            "tools": list(tools) or [tool("echo")],
            "tool_concurrency": concurrency,
        }
    )


def run_state(
    entries: list[Entry] | None = None,
    *,
    user_input: str = "hi",
    input_appended: bool = False,
    steps: int = 0,
    max_steps: int = 10,
    attempts: int = 0,
    next_checkpoint_seq: int = 1,
) -> RunState:
    """A RunState as app/store/run_state.py loads one."""
    entries = entries or []
    return RunState(
        run_id=uuid.UUID(int=1),
        tenant_id=DEFAULT_TENANT,
        session_id="session-1",
        input=[{"role": "user", "content": user_input}],
        input_appended=input_appended,
        steps=steps,
        max_steps=max_steps,
        usage=Usage(),
        attempts=attempts,
        entries=entries,
        next_seq=entries[-1].seq + 1 if entries else 1,
        next_checkpoint_seq=next_checkpoint_seq,
        position=sum(1 for e in entries if isinstance(e, Message) and e.role == "assistant"),
    )


def resumed_with_pending_call() -> list[Entry]:
    """A session whose last turn asked for one call that has no result yet."""
    return [
        Message(1, "system", "Be brief."),
        Message(2, "user", "hi"),
        Message(3, "assistant", "let me look", ["call_old"]),
        ToolCall("call_old", seq=4, message_seq=3, idx=0, name="echo", arguments={"x": 1}),
    ]


def reply(text: str, *calls: ProposedCall) -> ModelReply:
    return ModelReply(text, list(calls), Usage(input_tokens=10, output_tokens=5))


def call(call_id: str, name: str = "echo", **arguments: Any) -> ProposedCall:
    return ProposedCall(name, arguments, call_id)


class Harness:
    def __init__(
        self,
        state: RunState,
        definition: AgentDefinition,
        script: list[ModelReply | ModelError],
        *,
        delays: dict[str, float] | None = None,
        refuse_from: int | None = None,
        retry: RetryPolicy | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.trace = Trace()
        self.journal = FakeJournal(self.trace, refuse_from)
        self.control = FakeControl()
        self.model = FakeModel(self.trace, script)
        self.tools = FakeTools(self.trace, self.journal, delays)
        self.loop = AgentLoop(
            state, definition, self.model, self.tools, self.journal, self.control, retry, clock
        )

    async def run(self) -> RunStatus:
        return await self.loop.run()


# -- 1. the turn before its tools --------------------------------------------------------


async def test_agent_loop__saves_the_turn_and_its_calls_before_any_tool_runs() -> None:
    h = Harness(
        run_state(),
        agent(),
        [reply("looking", call("call_a", x=1), call("call_b", x=2)), reply("done")],
        delays={"call_a": 0.02},
    )

    assert await h.run() is RunStatus.FINISHED

    events = h.trace.events
    turn = events.index("save[running] msg:assistant calls:call_a,call_b")
    first_start = min(events.index("start call_a"), events.index("start call_b"))
    assert turn < first_start
    assert h.tools.saved_when_started == {"call_a": True, "call_b": True}
    saved_turn = h.journal.writes[1]
    assert [c.id for c in saved_turn.calls] == ["call_a", "call_b"]
    assert [c.status for c in saved_turn.calls] == [CallStatus.PENDING, CallStatus.PENDING]
    assert saved_turn.steps == 1
    assert [w.checkpoint_seq for w in h.journal.writes] == [1, 2, 3, 4, 5]
    assert h.trace.saves()[-1] == "save[finished] msg:assistant"
    assert {c.lease_token for c in h.tools.contexts} == {h.control.lease_token}


# -- 2. results as they settle -----------------------------------------------------------


async def test_agent_loop__saves_each_result_as_it_settles_faster_first() -> None:
    h = Harness(
        run_state(),
        agent(concurrency=2),
        [reply("two", call("call_slow"), call("call_fast")), reply("done")],
        delays={"call_slow": 0.05, "call_fast": 0.0},
    )

    assert await h.run() is RunStatus.FINISHED

    turn = h.trace.events.index("save[running] msg:assistant calls:call_slow,call_fast")
    assert h.trace.events[turn + 1 :] == [
        "start call_slow",
        "start call_fast",
        "end call_fast",
        # saved while the slow call still runs, not with it at the end of the batch
        "save[running] results:call_fast",
        "end call_slow",
        "save[running] results:call_slow",
        "model #1",
        "save[finished] msg:assistant",
    ]
    results = [w for w in h.journal.writes if w.settlements]
    assert [len(w.settlements) for w in results] == [1, 1]
    assert all(s.status is CallStatus.OK for w in results for s in w.settlements)


# -- 3. a resumed turn's pending calls first ---------------------------------------------


async def test_agent_loop__runs_pending_calls_of_the_last_turn_before_any_model_call() -> None:
    h = Harness(
        run_state(resumed_with_pending_call(), input_appended=True, next_checkpoint_seq=4),
        agent(),
        [reply("done")],
    )

    assert await h.run() is RunStatus.FINISHED

    assert h.trace.events == [
        "start call_old",
        "end call_old",
        "save[running] results:call_old",
        "model #1",
        "save[finished] msg:assistant",
    ]
    assert h.tools.ran == ["call_old"]
    # The model's first sight of the session already holds the result.
    (request,) = h.model.requests
    assert [m["role"] for m in request.messages] == ["system", "user", "assistant", "tool"]
    assert request.messages[-1]["tool_call_id"] == "call_old"
    assert h.journal.writes[0].checkpoint_seq == 4


# -- 4. the input after those results ----------------------------------------------------


async def test_agent_loop__appends_the_input_after_pending_results_never_between() -> None:
    h = Harness(
        run_state(resumed_with_pending_call(), user_input="and now?", next_checkpoint_seq=4),
        agent(),
        [reply("done")],
    )

    assert await h.run() is RunStatus.FINISHED

    assert h.trace.saves() == [
        "save[running] results:call_old",
        "save[running] msg:user",
        "save[finished] msg:assistant",
    ]
    appended = h.journal.writes[1]
    assert appended.messages[0].content == "and now?"
    # After the turn's call in the log (seq 4), so nothing sits between a turn and its results.
    assert appended.input_seq == appended.messages[0].seq == 5
    (request,) = h.model.requests
    assert [m["role"] for m in request.messages] == [
        "system",
        "user",
        "assistant",
        "tool",
        "user",
    ]


async def test_agent_loop__appends_the_input_of_a_fresh_run_before_the_first_model_call() -> None:
    h = Harness(run_state(), agent(), [reply("hello")])

    assert await h.run() is RunStatus.FINISHED

    assert h.trace.events == [
        "save[running] msg:system,user",
        "model #0",
        "save[finished] msg:assistant",
    ]
    assert h.journal.writes[0].input_seq == 1
    assert h.journal.writes[-1].output == "hello"


# -- 5. approvals: the others run, then one pause ----------------------------------------


async def test_agent_loop__runs_ungated_calls_then_pauses_once_for_all_gated_ones() -> None:
    definition = agent(
        tool("echo"),
        tool(
            "pay",
            needs_approval={"properties": {"amount": {"minimum": 100}}},
            approval_timeout_s=3600.0,
        ),
        tool("wipe", needs_approval=True),
    )
    h = Harness(
        run_state(),
        definition,
        [
            reply(
                "on it",
                call("call_big", "pay", amount=500),
                call("call_echo", "echo", x=1),
                call("call_small", "pay", amount=5),
                call("call_wipe", "wipe"),
            )
        ],
        delays={"call_small": 0.02},
    )

    assert await h.run() is RunStatus.AWAITING_APPROVAL

    assert h.trace.saves() == [
        "save[running] msg:system,user",
        "save[running] msg:assistant calls:call_big,call_echo,call_small,call_wipe",
        "save[running] results:call_echo",
        "save[running] results:call_small",
        "save[awaiting_approval] approvals:call_big,call_wipe",
    ]
    assert sorted(h.tools.ran) == ["call_echo", "call_small"]
    assert len(h.model.requests) == 1  # paused: no model call after the batch
    pauses = [w for w in h.journal.writes if w.approvals]
    assert len(pauses) == 1
    (pause,) = pauses
    assert pause.status is RunStatus.AWAITING_APPROVAL
    assert [(a.tool_call_id, a.tool, a.arguments, a.timeout_s) for a in pause.approvals] == [
        ("call_big", "pay", {"amount": 500}, 3600.0),
        ("call_wipe", "wipe", {}, None),
    ]
    assert len({a.id for a in pause.approvals}) == 2
    assert not pause.settlements
    assert not pause.messages
    assert h.loop.state.calls["call_big"].status is CallStatus.PENDING


# -- 6. model errors ---------------------------------------------------------------------


async def test_agent_loop__retryable_model_error__saves_a_back_off_and_no_turn() -> None:
    entries: list[Entry] = [Message(1, "system", "Be brief."), Message(2, "user", "hi")]
    h = Harness(
        run_state(entries, input_appended=True, next_checkpoint_seq=2),
        agent(),
        [ModelError("overloaded", retryable=True, code="overloaded", retry_after_s=2.5)],
    )

    assert await h.run() is RunStatus.QUEUED

    assert h.trace.events == ["model #0", "write[queued]"]
    (backoff,) = h.journal.writes
    assert backoff.save is False  # run fields only: no checkpoint row
    assert backoff.attempts == 1
    assert backoff.delay_s == 2.5
    assert backoff.last_error == {
        "code": "overloaded",
        "message": "overloaded",
        "retryable": True,
        "attempts": 1,
    }
    assert not backoff.messages
    assert not backoff.calls
    assert h.loop.state.next_checkpoint_seq == 2
    assert h.loop.state.steps == 0


@pytest.mark.parametrize(
    ("error", "attempts_before", "message"),
    [
        pytest.param(ModelError("bad request", retryable=False), 0, "bad request", id="fatal"),
        pytest.param(
            ModelError("overloaded", retryable=True),
            2,
            "gave up after 3 attempts: overloaded",
            id="retries-spent",
        ),
    ],
)
async def test_agent_loop__model_error_that_will_not_be_retried__fails_the_run(
    error: ModelError, attempts_before: int, message: str
) -> None:
    entries: list[Entry] = [Message(1, "system", "Be brief."), Message(2, "user", "hi")]
    h = Harness(
        run_state(entries, input_appended=True, attempts=attempts_before, next_checkpoint_seq=2),
        agent(),
        [error],
        retry=RetryPolicy(max_attempts=3),
    )

    assert await h.run() is RunStatus.FAILED

    assert h.trace.events == ["model #0", "save[failed]"]
    (failed,) = h.journal.writes
    assert failed.finish_reason == "error"
    assert failed.attempts == attempts_before + 1
    assert failed.last_error is not None
    assert failed.last_error["message"] == message
    assert not failed.messages


# -- 7. a lost lease stops everything ----------------------------------------------------


async def test_agent_loop__lease_lost_on_the_turn_save__stops_before_any_tool() -> None:
    h = Harness(
        run_state(),
        agent(),
        [reply("looking", call("call_a")), reply("done")],
        refuse_from=2,
    )

    with pytest.raises(LeaseLost):
        await h.run()

    assert h.trace.events == [
        "save[running] msg:system,user",
        "model #0",
        "refused save[running] msg:assistant calls:call_a",
    ]
    assert h.journal.attempts == 2
    assert h.tools.ran == []


async def test_agent_loop__lease_lost_on_a_result_save__cancels_the_rest_unsaved() -> None:
    h = Harness(
        run_state(),
        agent(concurrency=2),
        [reply("two", call("call_slow"), call("call_fast")), reply("done")],
        delays={"call_slow": 0.05, "call_fast": 0.0},
        refuse_from=3,
    )

    with pytest.raises(LeaseLost):
        await h.run()
    await asyncio.sleep(0.1)  # had the slow call been left running, it would end and save

    assert h.trace.events[-4:] == [
        "start call_slow",
        "start call_fast",
        "end call_fast",
        "refused save[running] results:call_fast",
    ]
    assert h.journal.attempts == 3
    # Nothing refused is applied to the in-memory state either.
    assert h.loop.state.calls["call_fast"].status is CallStatus.PENDING


async def test_agent_loop__lease_lost_signal_during_a_tool__raises_without_saving() -> None:
    h = Harness(
        run_state(),
        agent(),
        [reply("looking", call("call_a")), reply("done")],
        delays={"call_a": 1.0},
    )

    task = asyncio.create_task(h.run())
    while "start call_a" not in h.trace.events:
        await asyncio.sleep(0)
    h.control.stop(StopReason.LEASE_LOST)  # the heartbeat found the run gone
    with pytest.raises(RunStopped) as stopped:
        await task

    assert stopped.value.reason is StopReason.LEASE_LOST
    assert h.trace.events[-1] == "start call_a"
    assert h.journal.attempts == 2  # the input and the turn; no result, no hand-back


# -- 8. max_steps bounds the model calls -------------------------------------------------


@pytest.mark.parametrize(("steps_done", "model_calls"), [(0, 3), (2, 1), (3, 0)])
async def test_agent_loop__max_steps__bounds_the_model_calls(
    steps_done: int, model_calls: int
) -> None:
    script: list[ModelReply | ModelError] = [
        reply(f"step {n}", call(f"call_{n}")) for n in range(1, 6)
    ]
    h = Harness(run_state(steps=steps_done, max_steps=3), agent(), script)

    assert await h.run() is RunStatus.FINISHED

    assert len(h.model.requests) == model_calls
    assert len(h.tools.ran) == model_calls
    last = h.journal.writes[-1]
    assert h.trace.saves()[-1] == "save[finished]"
    assert last.finish_reason == "max_steps"
    assert last.steps == 3
    assert last.usage.model_calls == model_calls
    assert last.output == (f"step {model_calls}" if model_calls else None)


# -- sub-agents --------------------------------------------------------------------------


def agent_tool(name: str = "helper") -> dict[str, Any]:
    return {"name": name, "executor": {"type": "agent", "agent_id": "helper-agent"}}


async def test_agent_loop__an_agent_call_pauses_once_for_its_child_after_the_others_ran() -> None:
    h = Harness(
        run_state(),
        agent(tool("echo"), agent_tool()),
        [reply("both", call("call_e"), call("call_h", "helper", input="look it up"))],
    )

    assert await h.run() is RunStatus.AWAITING_CHILDREN

    pause = h.journal.writes[-1]
    assert pause.status is RunStatus.AWAITING_CHILDREN
    [child] = pause.children
    assert child.tool_call_id == "call_h"
    assert child.agent_id == "helper-agent"
    assert child.input == [{"role": "user", "content": "look it up"}]
    assert child.session_id.startswith("session-1.sub-")
    assert h.trace.events.index("start call_e") < h.trace.events.index("save[awaiting_children]")
    assert "start call_h" not in h.trace.events


def pending_agent_call(child: ChildRun | None) -> list[Entry]:
    entries = resumed_with_pending_call()
    waiting = entries[-1]
    assert isinstance(waiting, ToolCall)
    waiting.name, waiting.child = "helper", child
    return entries


async def test_agent_loop__an_ended_child_settles_its_call_without_a_second_child() -> None:
    ended = ChildRun(uuid.UUID(int=7), "session-1.sub-x", RunStatus.FINISHED, "found it", "stop")
    h = Harness(
        run_state(pending_agent_call(ended), input_appended=True),
        agent(agent_tool()),
        [reply("done")],
    )

    assert await h.run() is RunStatus.FINISHED

    settled = h.journal.writes[0]
    assert settled.children == []
    [result] = settled.settlements
    assert result.status is CallStatus.OK
    assert result.result["output"] == "found it"


async def test_agent_loop__a_child_still_going_is_waited_for_not_started_again() -> None:
    going = ChildRun(uuid.UUID(int=7), "session-1.sub-x", RunStatus.RUNNING)
    h = Harness(run_state(pending_agent_call(going), input_appended=True), agent(agent_tool()), [])

    assert await h.run() is RunStatus.AWAITING_CHILDREN

    [pause] = h.journal.writes
    assert (pause.status, pause.children) == (RunStatus.AWAITING_CHILDREN, [])


def test_child_session_id__valid_stable_and_distinct_for_any_call_id() -> None:
    long_session = "s" * 200
    first = child_session_id(long_session, "call with spaces/and:colons")
    assert first == child_session_id(long_session, "call with spaces/and:colons")
    assert first != child_session_id(long_session, "another call")
    assert SESSION_ID.fullmatch(first)
    assert SESSION_ID.fullmatch(child_session_id("a.b", "x"))
