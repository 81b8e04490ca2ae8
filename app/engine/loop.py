"""The agent loop (DESIGN.md §3): from a run's saved state, drive it to its next rest.

Pure logic: the model, the tools, the checkpoint journal and the worker's control signals
come in as interfaces. The order of effects is the whole point:

1. calls of the last turn that have no result run first, without a model call;
2. the run's input is appended after them (never between a turn and its results);
3. while steps remain: call the model, save the turn and its calls *before* any tool
   runs, then run the batch, saving each result as it settles. Calls that need a human
   wait: the others run, then the run pauses once for all of them.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import secrets
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol, TypeAlias, TypedDict, Unpack

from jsonschema import Draft202012Validator

from app.domain.agent import (
    AgentDefinition,
    AgentExecutor,
    ClientExecutor,
    ToolSpec,
    fingerprint,
    needs_approval,
)
from app.domain.arguments import SchemaUnusable, argument_errors
from app.domain.budget import Exceeded
from app.domain.run import (
    ApprovalStatus,
    CallStatus,
    CheckpointWrite,
    ChildRun,
    Message,
    NewApproval,
    NewChild,
    NewMessage,
    RunState,
    RunStatus,
    Settlement,
    ToolCall,
    Usage,
    child_session_id,
)
from app.engine.transcript import call_ids, model_messages
from app.providers.base import Model, ModelError, ModelReply, ModelRequest
from app.telemetry import metrics, tracing
from app.tools.base import ToolContext, ToolExecutor, ToolOutcome

log = logging.getLogger("perdure.engine")


class StopReason(StrEnum):
    CANCEL = "cancel"  # the user cancelled: record it and end the run
    LEASE_LOST = "lease_lost"  # another worker owns the run: write nothing more
    # Too little lease left to start a tool call: the run is still ours, hand it back.
    LEASE_MARGIN = "lease_margin"
    SHUTDOWN = "shutdown"  # this worker is stopping: hand the run back


class RunStopped(Exception):
    def __init__(self, reason: StopReason) -> None:
        super().__init__(reason.value)
        self.reason = reason


class Journal(Protocol):
    async def save(self, write: CheckpointWrite) -> None:
        """Commit one fenced checkpoint; raise LeaseLost if the run is no longer ours."""
        ...


class Control(Protocol):
    lease_token: int

    def stop_reason(self) -> StopReason | None: ...

    def draining(self) -> bool:
        """Hand the run back at the next step boundary: the worker is shutting down
        gracefully, or it drove this run alone only until it made progress."""
        ...

    def lease_ok(self) -> bool:
        """Enough lease left to start a side effect."""
        ...

    async def wait_stop(self) -> StopReason: ...


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 8
    base_s: float = 1.0
    max_s: float = 300.0

    def delay(self, attempts: int, retry_after_s: float | None) -> float:
        if retry_after_s is not None:
            return min(retry_after_s, self.max_s)
        ceiling: float = min(self.max_s, self.base_s * 2 ** max(attempts - 1, 0))
        return ceiling * random.uniform(0.5, 1.0)


@dataclass(frozen=True)
class Runnable:
    call: ToolCall
    tool: ToolSpec
    arguments: Any
    # A human approved it: record its start before it runs, and never run it twice.
    at_most_once: bool = False


@dataclass(frozen=True)
class Gated:
    """Needs a human's decision first."""

    call: ToolCall
    tool: ToolSpec


@dataclass(frozen=True)
class AwaitingOutput:
    """A client tool's call: the caller runs it and posts the output."""

    call: ToolCall


@dataclass(frozen=True)
class SpawnChild:
    """An agent tool's call with no child run yet: the pause starts one."""

    call: ToolCall
    executor: AgentExecutor
    arguments: Any


@dataclass(frozen=True)
class AwaitingChild:
    """An agent tool's call whose child run has not ended."""

    call: ToolCall


# What to do with an unsettled call: settle it now, run it, ask a human, wait for the
# caller's output, or start (or wait for) a child run.
Planned: TypeAlias = Settlement | Runnable | Gated | AwaitingOutput | SpawnChild | AwaitingChild


def new_call_id() -> str:
    return "call_" + secrets.token_hex(12)


def error_result(kind: str, message: str) -> dict[str, str]:
    return {"error": kind, "message": message}


INTERRUPTED = error_result(
    "interrupted",
    "the worker stopped during this approved call; it may or may not have taken effect, "
    "and it was not run again",
)


def child_input(arguments: Any) -> list[dict[str, Any]]:
    """A child run's input, from its call's arguments: `{"input": "text"}` is that text
    as a user message; any other arguments are the message's content as JSON."""
    if isinstance(arguments, dict) and set(arguments) == {"input"}:
        text = arguments["input"]
        if isinstance(text, str):
            return [{"role": "user", "content": text}]
    return [{"role": "user", "content": json.dumps(arguments, ensure_ascii=False)}]


def child_result(call_id: str, child: ChildRun) -> Settlement:
    """An ended child run as its call's result: its output, or why it has none."""
    where = {"run_id": str(child.run_id), "session_id": child.session_id}
    if child.status is RunStatus.FINISHED:
        return Settlement(
            call_id,
            CallStatus.OK,
            {"output": child.output, "finish_reason": child.finish_reason, **where},
        )
    if child.status is RunStatus.CANCELLED:
        return Settlement(
            call_id,
            CallStatus.CANCELLED,
            {**error_result("cancelled", "the child run was cancelled"), **where},
        )
    error = child.last_error or {}
    message = str(error.get("message") or "the child run failed")
    return Settlement(
        call_id,
        CallStatus.ERROR,
        {**error_result("child_failed", message), "code": error.get("code"), **where},
    )


class WriteFields(TypedDict, total=False):
    """What a checkpoint may change besides the status, steps and usage (`CheckpointWrite`'s
    fields; each defaults to nothing)."""

    save: bool
    messages: list[NewMessage]
    calls: list[ToolCall]
    settlements: list[Settlement]
    approvals: list[NewApproval]
    children: list[NewChild]
    started: list[str]
    input_seq: int | None
    output: str | None
    finish_reason: str | None
    attempts: int
    last_error: dict[str, Any] | None
    delay_s: float
    budget_exceeded: Exceeded | None


class CommitFields(WriteFields, total=False):
    steps: int
    usage: Usage


def checkpoint_write(
    state: RunState,
    status: RunStatus,
    *,
    fingerprint: str | None = None,
    steps: int | None = None,
    usage: Usage | None = None,
    **fields: Unpack[WriteFields],
) -> CheckpointWrite:
    """The next checkpoint of a run in `state` (steps and usage default to its own): every
    `CheckpointWrite` is made here."""
    write = CheckpointWrite(
        checkpoint_seq=state.next_checkpoint_seq,
        status=status,
        steps=state.steps if steps is None else steps,
        usage=state.usage if usage is None else usage,
        message_count=0,
        fingerprint=fingerprint,
        **fields,
    )
    write.message_count = (
        state.visible_count
        + len(write.messages)
        + sum(1 for s in write.settlements if s.status is not CallStatus.RUNNING)
    )
    return write


def failed_by_a_bug(state: RunState) -> CheckpointWrite:
    """The worker's last resort after an unexpected error: fail the run (not a fault that
    a retry would cure), rather than let it loop from worker to worker."""
    return checkpoint_write(
        state,
        RunStatus.FAILED,
        save=False,
        attempts=state.attempts + 1,
        last_error={
            "code": "internal_error",
            "retryable": False,
            "message": "the worker hit an internal error; see its log",
        },
        finish_reason="error",
    )


class AgentLoop:
    def __init__(
        self,
        state: RunState,
        agent: AgentDefinition,
        model: Model,
        tools: ToolExecutor,
        journal: Journal,
        control: Control,
        retry: RetryPolicy | None = None,
        clock: Callable[[], float] = time.monotonic,
        on_delta: Callable[[str], None] | None = None,
    ) -> None:
        self.state = state
        # Text of a streaming model's reply as it arrives, for stream clients: ephemeral.
        self.on_delta = on_delta
        self.agent = agent
        self.model = model
        self.tools = tools
        self.journal = journal
        self.control = control
        self.retry = retry or RetryPolicy()
        self._validators = {t.name: Draft202012Validator(t.input_schema) for t in agent.tools}
        self._messages: list[dict[str, Any]] = []
        self._messages_upto = 0
        self._fingerprint = str(fingerprint(agent)["digest"])
        # Saves of one run are strictly sequential: each takes the next checkpoint seq.
        self._save_lock = asyncio.Lock()
        # Wall time counts while a worker drives the run: the saved time plus this drive's.
        self._clock = clock
        self._driven_since = clock()
        self._wall_time_before = state.usage.wall_time_s
        # Tool calls started whose results are not saved yet: a budget check counts them,
        # so calls that run at once cannot all pass the same check.
        self._tools_in_flight = 0

    # -- the loop ------------------------------------------------------------------------

    async def run(self) -> RunStatus:
        """Drive the run until it finishes, pauses, fails or is stopped.

        Returns the status it saved; raises RunStopped when the worker must hand the run
        back (shutdown, lease margin) or has lost it (lease), after saving whatever that
        requires.
        """
        try:
            return await self._run()
        except RunStopped as stop:
            if stop.reason is StopReason.CANCEL:
                return await self._save_cancelled()
            if stop.reason in (StopReason.SHUTDOWN, StopReason.LEASE_MARGIN):
                await self._hand_back()
            raise

    async def _run(self) -> RunStatus:
        self._check_stop(boundary=False)
        pending = self.state.unsettled_calls()
        if pending:
            paused = await self._run_batch([self._classify(call) for call in pending])
            if paused is not None:
                return paused
        if not self.state.input_appended:
            await self._append_input()
        while self.state.steps < self.state.max_steps:
            self._check_stop(boundary=True)
            with tracing.span("perdure.step", {"perdure.step": self.state.steps + 1}):
                rest = await self._step()
            if rest is not None:
                return rest
        await self._commit(RunStatus.FINISHED, output=self._last_text(), finish_reason="max_steps")
        return RunStatus.FINISHED

    # -- steps ---------------------------------------------------------------------------

    async def _step(self) -> RunStatus | None:
        """One model turn and its tool calls; the status the run rests in, or None to go on."""
        exceeded = self._over_budget(before_tool_call=False)
        if exceeded is not None:
            return await self._end_over_budget(exceeded)
        try:
            reply = await self._call_model()
        except ModelError as exc:
            return await self._model_failed(exc)
        plan = await self._save_turn(reply)
        if not plan:
            return RunStatus.FINISHED
        return await self._run_batch(plan)

    async def _append_input(self) -> None:
        state = self.state
        new: list[NewMessage] = []
        fresh_session = not state.entries
        has_system = state.has_system_message()
        system = self._system_prompt()
        if fresh_session and system:
            new.append(NewMessage(0, "system", system))
            has_system = True
        for item in state.input:
            role = item.get("role", "user")
            # One system message per session: later ones in input are ignored, as the
            # reference SDK does for a stored session.
            if role == "system" and (has_system or not fresh_session):
                continue
            has_system = has_system or role == "system"
            new.append(NewMessage(0, role, item.get("content", "")))
        for offset, message in enumerate(new):
            message.seq = state.next_seq + offset
        input_seq = new[0].seq if new else state.next_seq
        await self._commit(RunStatus.RUNNING, messages=new, input_seq=input_seq)
        state.input_appended = True

    def _system_prompt(self) -> str:
        """The session's system message, written with its first input."""
        return self.agent.instructions

    async def _call_model(self) -> ModelReply:
        request = ModelRequest(
            session_id=self.state.session_id,
            run_id=self.state.run_id,
            messages=self._model_messages(),
            tools=self.agent.tools,
            position=self.state.position,
            attempt=self.state.attempts,
            on_delta=self.on_delta,
        )
        provider = self.agent.model.provider
        started = time.perf_counter()
        with tracing.span(
            "perdure.model_call",
            {"perdure.provider": provider, "perdure.attempt": self.state.attempts},
        ):
            try:
                reply = await self.model.generate(request)
            except ModelError as exc:
                metrics.MODEL_CALL.labels(provider, "error").observe(time.perf_counter() - started)
                metrics.MODEL_ERRORS.labels(provider, metrics.bounded(exc.code)).inc()
                raise
        metrics.MODEL_CALL.labels(provider, "ok").observe(time.perf_counter() - started)
        # Spent once the provider answered, whether or not the turn is saved after.
        metrics.MODEL_TOKENS.labels(provider, "input").inc(reply.usage.input_tokens)
        metrics.MODEL_TOKENS.labels(provider, "output").inc(reply.usage.output_tokens)
        price = self.agent.model.price
        if price is not None:
            metrics.MODEL_COST.labels(provider).inc(price.cost_usd(reply.usage))
        return reply

    async def _save_turn(self, reply: ModelReply) -> list[Planned]:
        """Save the model's turn and its calls, before any of them runs; returns what to
        do with each call (`_run_batch`)."""
        state = self.state
        message_seq = state.next_seq
        # The model's own ids where they are free in the session, so it gets them back.
        ids = call_ids([p.id for p in reply.tool_calls], state.calls, new_call_id)
        calls = [
            ToolCall(
                id=ids[idx],
                seq=message_seq + 1 + idx,
                message_seq=message_seq,
                idx=idx,
                name=proposed.name,
                arguments=proposed.arguments,
                provider_call_id=proposed.id,
            )
            for idx, proposed in enumerate(reply.tool_calls)
        ]
        message = NewMessage(
            message_seq, "assistant", reply.text, [c.id for c in calls], reply.provider_data
        )
        usage = self._usage_after(reply)
        steps = state.steps + 1
        # Classified before the save, so that it can say which calls start right after it.
        plan = [self._classify(call) for call in calls]
        if calls:
            started = [p.call.id for p in plan if isinstance(p, Runnable)]
            await self._commit(
                RunStatus.RUNNING,
                messages=[message],
                calls=calls,
                steps=steps,
                usage=usage,
                started=started,
            )
        else:
            await self._commit(
                RunStatus.FINISHED,
                messages=[message],
                steps=steps,
                usage=usage,
                output=reply.text,
                finish_reason="stop",
            )
        state.steps, state.attempts = steps, 0
        state.position += 1
        return plan

    def _usage_after(self, reply: ModelReply) -> Usage:
        """The run's usage once this reply is saved: its tokens, their cost, one call."""
        spent = reply.usage.copy()
        price = self.agent.model.price
        spent.cost_usd = price.cost_usd(spent) if price is not None else 0.0
        usage = self.state.usage.plus(spent)
        usage.model_calls += 1
        return usage

    async def _model_failed(self, exc: ModelError) -> RunStatus:
        attempts = self.state.attempts + 1
        error = {**exc.as_dict(), "attempts": attempts}
        if exc.retryable and attempts < self.retry.max_attempts:
            delay = self.retry.delay(attempts, exc.retry_after_s)
            log.info(
                "run %s: model error (%s), retry %d in %.2fs",
                self.state.run_id,
                exc.code,
                attempts,
                delay,
            )
            await self._commit(
                RunStatus.QUEUED, save=False, attempts=attempts, last_error=error, delay_s=delay
            )
            return RunStatus.QUEUED
        if exc.retryable:
            error["message"] = f"gave up after {attempts} attempts: {exc.message}"
        await self._commit(
            RunStatus.FAILED, attempts=attempts, last_error=error, finish_reason="error"
        )
        return RunStatus.FAILED

    # -- tool batches --------------------------------------------------------------------

    async def _run_batch(self, plan: list[Planned]) -> RunStatus | None:
        """Run a turn's unsettled calls as planned (`_classify`), saving each result as it
        settles (settle order).

        Calls that wait for a human or for the caller do not block the others: those run
        and are saved first, then the run pauses once (approvals before client outputs).
        Returns the paused status, or None when every call has its result.
        """
        immediate = [p for p in plan if isinstance(p, Settlement)]
        if immediate:
            await self._commit(RunStatus.RUNNING, settlements=immediate)
        runnable = [p for p in plan if isinstance(p, Runnable)]
        if runnable:
            exceeded = await self._execute(runnable)
            if exceeded is not None:
                # The calls not started stay pending: a later run of the session (with a
                # raised budget) runs them first, as it would after a failure.
                return await self._end_over_budget(exceeded)
        gated = [p for p in plan if isinstance(p, Gated)]
        if gated:
            await self._pause_for_approval(gated)
            return RunStatus.AWAITING_APPROVAL
        spawn = [p for p in plan if isinstance(p, SpawnChild)]
        if spawn or any(isinstance(p, AwaitingChild) for p in plan):
            # Children before client outputs: the caller's outputs are taken once the
            # run waits for nothing else.
            await self._commit(RunStatus.AWAITING_CHILDREN, children=self._new_children(spawn))
            return RunStatus.AWAITING_CHILDREN
        if any(isinstance(p, AwaitingOutput) for p in plan):
            await self._commit(RunStatus.AWAITING_TOOL_RESULTS)
            return RunStatus.AWAITING_TOOL_RESULTS
        return None

    def _classify(self, call: ToolCall) -> Planned:
        """What to do with one unsettled call: settle it now, run it, or wait."""
        if call.status is CallStatus.RUNNING:
            # An approved call whose worker died mid-call: never run it again.
            return Settlement(call.id, CallStatus.INTERRUPTED, INTERRUPTED)
        tool = self.agent.tool(call.name)
        problem = self._argument_problem(call, tool)
        if problem is not None:
            return Settlement(call.id, CallStatus.ERROR, problem.result)
        assert tool is not None
        arguments, at_most_once = call.arguments, False
        try:
            gated = needs_approval(tool, call.arguments)
        except Exception:  # an approval schema that cannot be applied: ask the human
            gated = True
        if gated:
            decision = call.approval
            if decision is None or decision.status in (
                ApprovalStatus.PENDING,
                ApprovalStatus.ORPHANED,
            ):
                return Gated(call, tool)
            if decision.status is not ApprovalStatus.APPROVED:
                note = decision.reason or (
                    "the approval expired"
                    if decision.status is ApprovalStatus.EXPIRED
                    else "rejected by a human"
                )
                return Settlement(call.id, CallStatus.REJECTED, {"error": "rejected", "note": note})
            if decision.arguments is not None:
                arguments = decision.arguments
            at_most_once = True
        if isinstance(tool.executor, AgentExecutor):
            return self._plan_child(call, tool.executor, arguments)
        if isinstance(tool.executor, ClientExecutor):
            posted = call.client_output
            if posted is None:
                return AwaitingOutput(call)
            status = CallStatus.ERROR if posted.is_error else CallStatus.OK
            return Settlement(call.id, status, posted.output)
        return Runnable(call, tool, arguments, at_most_once)

    def _plan_child(self, call: ToolCall, executor: AgentExecutor, arguments: Any) -> Planned:
        """An agent tool's call: settled from its child once that ended, else wait for it,
        or start it (unless the tree is as deep as this agent allows)."""
        child = call.child
        if child is not None:
            if not child.ended:
                return AwaitingChild(call)
            return child_result(call.id, child)
        if self.state.depth >= self.agent.max_depth:
            return Settlement(
                call.id,
                CallStatus.ERROR,
                error_result(
                    "depth_exceeded",
                    f"this run is {self.state.depth} deep in a tree of sub-agents, the "
                    f"most its agent allows (max_depth {self.agent.max_depth}) for "
                    "starting another; answer without it",
                ),
            )
        return SpawnChild(call, executor, arguments)

    def _new_children(self, spawn: list[SpawnChild]) -> list[NewChild]:
        return [
            NewChild(
                run_id=uuid.uuid4(),
                tool_call_id=s.call.id,
                session_id=child_session_id(self.state.session_id, s.call.id),
                agent_id=s.executor.agent_id,
                agent_version=s.executor.agent_version,
                input=child_input(s.arguments),
            )
            for s in spawn
        ]

    def _argument_problem(self, call: ToolCall, tool: ToolSpec | None) -> ToolOutcome | None:
        if tool is None:
            known = ", ".join(t.name for t in self.agent.tools) or "none"
            return ToolOutcome.error(
                "unknown_tool", f"no tool named {call.name!r} (tools: {known})"
            )
        if not isinstance(call.arguments, dict):
            return ToolOutcome.error("invalid_arguments", "arguments must be a JSON object")
        try:
            errors = argument_errors(self._validators[tool.name], call.arguments)
        except SchemaUnusable as exc:  # the model hears it; nothing crashes
            return ToolOutcome.error(
                "invalid_schema", f"the tool's schema cannot be applied: {exc}"
            )
        if errors:
            details = [{"path": "/".join(e.path), "message": e.message} for e in errors]
            return ToolOutcome.error("invalid_arguments", errors[0].message, details=details)
        return None

    async def _execute(self, runnable: list[Runnable]) -> Exceeded | None:
        """Run the calls, saving results as they settle. Returns the budget that stopped
        calls from starting, if one did (those that started finish and are saved)."""
        gate = asyncio.Semaphore(self.agent.tool_concurrency)
        not_started: list[str] = []
        short_of_lease: list[str] = []
        over_budget: list[Exceeded] = []

        async def one(item: Runnable) -> Settlement | None:
            call = item.call
            async with gate:
                if self.control.draining():
                    not_started.append(call.id)
                    return None
                self._check_stop(boundary=False)
                if short_of_lease or not self.control.lease_ok():
                    # Not enough lease left to be sure nobody else starts this call too:
                    # start no more; those running finish and are saved; then hand back.
                    short_of_lease.append(call.id)
                    return None
                exceeded = over_budget[0] if over_budget else self._over_budget()
                if exceeded is not None:
                    over_budget.append(exceeded)
                    return None
                # No await between the check and this: a concurrent call's check sees it.
                self._tools_in_flight += 1
                if item.at_most_once:
                    # The intent record: committed before the call, so a crash during it
                    # leaves `running` behind and the call is never started again.
                    await self._commit(
                        RunStatus.RUNNING,
                        save=False,
                        settlements=[Settlement(call.id, CallStatus.RUNNING, None)],
                    )
                context = ToolContext(
                    call.id,
                    self.state.session_id,
                    self.state.run_id,
                    self.control.lease_token,
                    tenant_id=self.state.tenant_id,
                )
                executor = item.tool.executor.type
                started = time.perf_counter()
                with tracing.span(
                    "perdure.tool_call",
                    {"perdure.tool": item.tool.name, "perdure.executor": executor},
                ):
                    try:
                        outcome = await self.tools.execute(item.tool, item.arguments, context)
                    except Exception as exc:  # a tool bug must yield a result, not a lost turn
                        log.warning("tool %s raised %r", item.tool.name, exc)
                        outcome = ToolOutcome.error("tool_failed", f"{type(exc).__name__}: {exc}")
                metrics.TOOL_CALL.labels(executor, "ok" if outcome.ok else "error").observe(
                    time.perf_counter() - started
                )
            status = CallStatus.OK if outcome.ok else CallStatus.ERROR
            return Settlement(call.id, status, outcome.result)

        tasks = [asyncio.create_task(one(item)) for item in runnable]
        stop = asyncio.create_task(self.control.wait_stop())
        pending: set[asyncio.Task[Any]] = set(tasks)
        try:
            while pending:
                done, _ = await asyncio.wait(pending | {stop}, return_when=asyncio.FIRST_COMPLETED)
                if stop in done:
                    raise RunStopped(stop.result())
                pending -= done
                # Everything that settled while the previous save was in flight is saved
                # together: still as soon as it can be, with fewer commits.
                settled = [s for s in (t.result() for t in done) if isinstance(s, Settlement)]
                if settled:
                    await self._commit(RunStatus.RUNNING, settlements=settled, executed=settled)
        finally:
            for task in (*pending, stop):
                task.cancel()
            await asyncio.gather(*pending, stop, return_exceptions=True)
        if not_started:
            raise RunStopped(StopReason.SHUTDOWN)
        if short_of_lease:
            raise RunStopped(StopReason.LEASE_MARGIN)
        return over_budget[0] if over_budget else None

    async def _pause_for_approval(self, gated: list[Gated]) -> None:
        """One save: an approval per gated call, the run `awaiting_approval`, lease released."""
        approvals = [
            NewApproval(
                str(uuid.uuid4()),
                g.call.id,
                g.tool.name,
                g.call.arguments,
                g.tool.approval_timeout_s,
            )
            for g in gated
        ]
        await self._commit(RunStatus.AWAITING_APPROVAL, approvals=approvals)

    # -- budgets -------------------------------------------------------------------------

    def _usage_now(self) -> Usage:
        """The run's usage as a budget sees it: what was saved, this drive's wall time so
        far, the tool calls running now, and what its child runs spent."""
        usage = self.state.usage.copy()
        usage.wall_time_s = self._wall_time()
        usage.tool_calls += self._tools_in_flight
        return usage.plus(self.state.children_usage)

    def _wall_time(self) -> float:
        return round(self._wall_time_before + (self._clock() - self._driven_since), 3)

    def _over_budget(self, *, before_tool_call: bool = True) -> Exceeded | None:
        """The run's or its session's budget that is spent, if one is. Before a tool call
        the model-call limit does not apply: the call was asked for by a call it allowed."""
        state = self.state
        if not state.budget.limits() and not state.session_budget.limits():
            return None  # nothing to check (most runs): the sums below are per turn
        usage = self._usage_now()
        skip = frozenset({"max_model_calls"}) if before_tool_call else frozenset()
        exceeded = state.budget.first_spent(usage, skip=skip)
        if exceeded is None:
            spent = state.session_budget.first_spent(state.session_usage.plus(usage), skip=skip)
            exceeded = spent.of_session() if spent is not None else None
        return exceeded

    async def _end_over_budget(self, exceeded: Exceeded) -> RunStatus:
        log.info(
            "run %s: %s budget %s spent (%s of %s)",
            self.state.run_id,
            exceeded.scope,
            exceeded.limit,
            exceeded.used,
            exceeded.max,
        )
        await self._commit(
            RunStatus.FINISHED,
            output=self._last_text(),
            finish_reason="budget_exceeded",
            budget_exceeded=exceeded,
        )
        return RunStatus.FINISHED

    # -- stopping ------------------------------------------------------------------------

    def _check_stop(self, *, boundary: bool) -> None:
        reason = self.control.stop_reason()
        if reason is None and boundary and self.control.draining():
            reason = StopReason.SHUTDOWN
        if reason is not None:
            raise RunStopped(reason)

    async def _save_cancelled(self) -> RunStatus:
        cancelled = error_result("cancelled", "the run was cancelled")
        settlements = [
            # An approved call already started may have taken effect: say so.
            Settlement(c.id, CallStatus.INTERRUPTED, INTERRUPTED)
            if c.status is CallStatus.RUNNING
            else Settlement(c.id, CallStatus.CANCELLED, cancelled)
            for c in self.state.unsettled_calls()
        ]

        await self._commit(RunStatus.CANCELLED, settlements=settlements, finish_reason="cancelled")
        return RunStatus.CANCELLED

    async def _hand_back(self) -> None:
        await self._commit(RunStatus.QUEUED, save=False, attempts=self.state.attempts)

    # -- bookkeeping ---------------------------------------------------------------------

    async def _commit(
        self,
        status: RunStatus,
        *,
        executed: list[Settlement] | None = None,
        **fields: Unpack[CommitFields],
    ) -> None:
        """Save one checkpoint, then apply it to the in-memory state (once it is durable).

        Every save carries the run's wall time so far, and counts the tool calls whose
        results it saves (`executed`).
        """
        async with self._save_lock:
            state = self.state
            usage = fields.get("usage", state.usage).copy()
            usage.wall_time_s = self._wall_time()
            usage.tool_calls += len(executed or [])
            fields["usage"] = usage
            write = checkpoint_write(state, status, fingerprint=self._fingerprint, **fields)
            await self.journal.save(write)
            state.usage = write.usage
            self._tools_in_flight -= len(executed or [])
            for message in write.messages:
                state.append(
                    Message(
                        message.seq,
                        message.role,
                        message.content,
                        message.tool_call_ids,
                        message.provider_data,
                    )
                )
            for call in write.calls:
                state.append(call)
            for settlement in write.settlements:
                state.settle(settlement.tool_call_id, settlement.status, settlement.result)
            state.next_seq += len(write.messages) + len(write.calls)
            if write.save:
                state.next_checkpoint_seq += 1

    def _model_messages(self) -> list[dict[str, Any]]:
        # Entries only ever append, and the model is only called once every call has a
        # result, so the provider transcript grows incrementally: O(1) per turn, not O(K).
        new = self.state.entries[self._messages_upto :]
        self._messages.extend(model_messages(new))
        self._messages_upto = len(self.state.entries)
        return self._messages

    def _last_text(self) -> str | None:
        last = self.state.last_assistant()
        return str(last.content) if last and last.content is not None else None
