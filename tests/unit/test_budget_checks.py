"""Budgets in the agent loop (app/engine/loop.py), with no database: checked before each
model call and each tool call against the usage the run's saves carry, ended through a
checkpoint that says which limit.

The fakes are test_engine_loop's; `reply()` there spends 10 input and 5 output tokens.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.domain.agent import AgentDefinition
from app.domain.budget import Budget, Exceeded, Usage
from app.domain.run import CallStatus, RunState, RunStatus
from app.providers.base import ModelError, ModelReply
from tests.unit.test_engine_loop import Harness, agent, call, reply, run_state, tool

pytestmark = pytest.mark.timeout(5)


def tool_calling_script(turns: int = 10) -> list[ModelReply | ModelError]:
    """Each turn asks for one call: a run that would go on until max_steps."""
    return [reply(f"turn {n}", call(f"call_{n}")) for n in range(1, turns + 1)]


def budgeted(state: RunState, **limits: Any) -> RunState:
    state.budget = Budget(**limits)
    return state


def priced_agent(**extra: Any) -> AgentDefinition:
    """`agent()` with a price: 1 $/Mtok in, 2 $/Mtok out; a `reply()` costs 0.00002 $."""
    return AgentDefinition.model_validate(
        {
            "model": {
                "provider": "scripted",
                "script": [{"text": "unused"}],
                "price": {"input_per_mtok": 1.0, "output_per_mtok": 2.0},
            },
            "tools": [tool("echo")],
            **extra,
        }
    )


def ended_by(h: Harness) -> Exceeded:
    last = h.journal.writes[-1]
    assert last.status is RunStatus.FINISHED
    assert last.finish_reason == "budget_exceeded"
    assert last.save, "the end of a run over budget is a checkpoint"
    assert last.budget_exceeded is not None
    return last.budget_exceeded


@pytest.mark.parametrize(
    ("limits", "model_calls", "tool_calls", "limit", "used"),
    [
        # Spent once reached: two calls of 10 input tokens reach 20, and the second
        # turn's call is not started (checked before each tool call too).
        ({"max_input_tokens": 20}, 2, 1, "max_input_tokens", 20),
        ({"max_input_tokens": 21}, 3, 2, "max_input_tokens", 30),
        ({"max_output_tokens": 15}, 3, 2, "max_output_tokens", 15),
        ({"max_cost_usd": 0.00006}, 3, 2, "max_cost_usd", 0.00006),
        # The model-call limit does not stop the calls its last allowed call asked for.
        ({"max_model_calls": 2}, 2, 2, "max_model_calls", 2),
        ({"max_model_calls": 0}, 0, 0, "max_model_calls", 0),
        # Spent tool calls end the run before the next model call (which would ask for more).
        ({"max_tool_calls": 2}, 2, 2, "max_tool_calls", 2),
    ],
)
async def test_budget__each_limit_ends_the_run_before_the_call_that_would_pass_it(
    limits: dict[str, Any], model_calls: int, tool_calls: int, limit: str, used: float
) -> None:
    h = Harness(budgeted(run_state(), **limits), priced_agent(), tool_calling_script())

    assert await h.run() is RunStatus.FINISHED

    assert ended_by(h) == Exceeded("run", limit, limits[limit], used)
    assert len(h.model.requests) == model_calls
    assert len(h.tools.ran) == tool_calls
    saved = h.journal.writes[-1].usage
    assert (saved.model_calls, saved.tool_calls) == (model_calls, tool_calls)
    assert saved.cost_usd == pytest.approx(0.00002 * model_calls)


async def test_budget__a_call_left_unstarted_stays_pending_for_the_next_run() -> None:
    """The model asked for it, and a later run of the session (a raised budget) runs it
    first, as after a failure: it gets no made-up result."""
    h = Harness(
        budgeted(run_state(), max_tool_calls=1),
        agent(),
        [reply("two", call("call_a"), call("call_b")), reply("done")],
    )

    assert await h.run() is RunStatus.FINISHED

    assert ended_by(h).limit == "max_tool_calls"
    assert h.tools.ran == ["call_a"]
    assert h.loop.state.calls["call_b"].status is CallStatus.PENDING
    assert [c.id for c in h.loop.state.unsettled_calls()] == ["call_b"]


async def test_budget__calls_that_start_together_cannot_all_pass_one_check() -> None:
    """Four calls at once under max_tool_calls 2: the check counts calls running, not
    only those whose results were saved."""
    h = Harness(
        budgeted(run_state(), max_tool_calls=2),
        agent(concurrency=4),
        [reply("four", *(call(f"call_{n}") for n in range(4))), reply("done")],
        delays={f"call_{n}": 0.02 for n in range(4)},
    )

    assert await h.run() is RunStatus.FINISHED

    assert len(h.tools.ran) == 2
    assert h.journal.writes[-1].usage.tool_calls == 2


async def test_budget__a_resumed_run_continues_from_its_saved_usage() -> None:
    """Usage loaded from the checkpoint counts: a run that already made 2 of 3 model
    calls (and spent 30 of 45 input tokens) makes one more, not three."""
    state = budgeted(run_state(steps=2), max_model_calls=3, max_input_tokens=45)
    state.usage = Usage(input_tokens=30, output_tokens=10, model_calls=2, tool_calls=2)

    h = Harness(state, agent(), tool_calling_script())
    assert await h.run() is RunStatus.FINISHED

    assert len(h.model.requests) == 1
    assert ended_by(h) == Exceeded("run", "max_model_calls", 3, 3)
    assert h.journal.writes[-1].usage.tool_calls == 3


async def test_budget__the_session_budget_counts_the_sessions_other_runs() -> None:
    state = run_state()
    state.session_budget = Budget(max_model_calls=5)
    state.session_usage = Usage(model_calls=4)

    h = Harness(state, agent(), tool_calling_script())
    assert await h.run() is RunStatus.FINISHED

    assert len(h.model.requests) == 1
    assert ended_by(h) == Exceeded("session", "max_model_calls", 5, 5)


async def test_budget__the_runs_own_limit_is_named_before_the_sessions() -> None:
    state = budgeted(run_state(), max_model_calls=1)
    state.session_budget = Budget(max_model_calls=1)

    h = Harness(state, agent(), tool_calling_script())
    assert await h.run() is RunStatus.FINISHED

    assert ended_by(h).scope == "run"


class Clock:
    """A monotonic clock the test moves: each model call takes one second."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_budget__wall_time_counts_this_drive_on_top_of_the_saved_time() -> None:
    clock = Clock()
    state = budgeted(run_state(), max_wall_time_s=2.5)
    state.usage = Usage(wall_time_s=1.0)  # driven for a second before it was handed back
    h = Harness(state, agent(), tool_calling_script(), clock=clock)
    generate = h.model.generate

    async def slow_generate(request: Any) -> ModelReply:
        clock.now += 1.0
        return await generate(request)

    h.model.generate = slow_generate  # type: ignore[method-assign]

    assert await h.run() is RunStatus.FINISHED

    # 1.0 saved, +1 +1: the second turn's call would start at 3.0, past 2.5.
    assert len(h.model.requests) == 2
    assert h.tools.ran == ["call_1"]
    assert ended_by(h) == Exceeded("run", "max_wall_time_s", 2.5, 3.0)
    # Every save carries the time so far: input, turn, result, turn, end.
    assert [w.usage.wall_time_s for w in h.journal.writes] == [1.0, 2.0, 2.0, 3.0, 3.0]


async def test_budget__no_budget__the_run_goes_to_max_steps() -> None:
    h = Harness(run_state(max_steps=3), priced_agent(), tool_calling_script())

    assert await h.run() is RunStatus.FINISHED

    last = h.journal.writes[-1]
    assert last.finish_reason == "max_steps"
    assert last.budget_exceeded is None
    assert last.usage.cost_usd == pytest.approx(0.00006)
