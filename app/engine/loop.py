"""The agent loop (DESIGN.md §3): from a run's saved state, drive it to its next rest.

Pure logic: the model, the tools, the checkpoint journal and the worker's control signals
come in as interfaces. The order of effects is the whole point:

1. calls of the last turn that have no result run first, without a model call;
2. the run's input is appended after them (never between a turn and its results);
3. while steps remain: call the model, save the turn and its calls *before* any tool
   runs, then run the batch, saving each result as it settles.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from jsonschema import Draft202012Validator

from app.domain.agent import AgentDefinition, ToolSpec
from app.domain.run import (
    CallStatus,
    CheckpointWrite,
    Message,
    NewMessage,
    RunState,
    RunStatus,
    Settlement,
    ToolCall,
    Usage,
)
from app.engine.transcript import model_messages
from app.providers.base import Model, ModelError, ModelReply, ModelRequest
from app.tools.base import ToolContext, ToolExecutor, ToolOutcome

log = logging.getLogger("perdure.engine")


class StopReason(StrEnum):
    CANCEL = "cancel"  # the user cancelled: record it and end the run
    LEASE_LOST = "lease_lost"  # another worker owns the run: write nothing more
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
        """This worker is shutting down gracefully: stop at the next step boundary."""
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


def new_call_id() -> str:
    return "call_" + secrets.token_hex(12)


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
        on_model_call: Callable[[ModelRequest], None] | None = None,
    ) -> None:
        self.state = state
        self.agent = agent
        self.model = model
        self.tools = tools
        self.journal = journal
        self.control = control
        self.retry = retry or RetryPolicy()
        self._validators = {t.name: Draft202012Validator(t.input_schema) for t in agent.tools}
        self._messages: list[dict[str, Any]] = []
        self._messages_upto = 0

    # -- the loop ------------------------------------------------------------------------

    async def run(self) -> RunStatus:
        """Drive the run until it finishes, pauses, fails or is stopped.

        Returns the status it saved; raises RunStopped when the worker must hand the run
        back (shutdown) or has lost it (lease), after saving whatever that requires.
        """
        try:
            return await self._run()
        except RunStopped as stop:
            if stop.reason is StopReason.CANCEL:
                return await self._save_cancelled()
            if stop.reason is StopReason.SHUTDOWN:
                await self._hand_back()
            raise

    async def _run(self) -> RunStatus:
        pending = self.state.unsettled_calls()
        if pending:
            await self._run_batch(pending)
        if not self.state.input_appended:
            await self._append_input()
        while self.state.steps < self.state.max_steps:
            self._check_stop(boundary=True)
            try:
                reply = await self._call_model()
            except ModelError as exc:
                return await self._model_failed(exc)
            calls = await self._save_turn(reply)
            if not calls:
                return RunStatus.FINISHED
            await self._run_batch(calls)
        await self._save(
            self._write(
                RunStatus.FINISHED, save=True, output=self._last_text(), finish_reason="max_steps"
            )
        )
        return RunStatus.FINISHED

    # -- steps ---------------------------------------------------------------------------

    async def _append_input(self) -> None:
        state = self.state
        new: list[NewMessage] = []
        fresh_session = not state.entries
        has_system = state.has_system_message()
        if fresh_session and self.agent.instructions:
            new.append(NewMessage(0, "system", self.agent.instructions))
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
        write = self._write(RunStatus.RUNNING, save=True, messages=new)
        write.input_seq = new[0].seq if new else state.next_seq
        await self._save(write)
        state.input_appended = True

    async def _call_model(self) -> ModelReply:
        request = ModelRequest(
            session_id=self.state.session_id,
            run_id=self.state.run_id,
            messages=self._model_messages(),
            tools=self.agent.tools,
            position=self.state.position,
            attempt=self.state.attempts,
        )
        return await self.model.generate(request)

    async def _save_turn(self, reply: ModelReply) -> list[ToolCall]:
        state = self.state
        message_seq = state.next_seq
        calls = [
            ToolCall(
                id=new_call_id(),
                seq=message_seq + 1 + idx,
                message_seq=message_seq,
                idx=idx,
                name=proposed.name,
                arguments=proposed.arguments,
            )
            for idx, proposed in enumerate(reply.tool_calls)
        ]
        message = NewMessage(message_seq, "assistant", reply.text, [c.id for c in calls])
        usage = Usage(**state.usage.as_dict())
        usage.add(reply.usage)
        usage.model_calls += 1
        steps = state.steps + 1
        if calls:
            write = self._write(
                RunStatus.RUNNING,
                save=True,
                messages=[message],
                calls=calls,
                steps=steps,
                usage=usage,
            )
        else:
            write = self._write(
                RunStatus.FINISHED,
                save=True,
                messages=[message],
                steps=steps,
                usage=usage,
                output=reply.text,
                finish_reason="stop",
            )
        await self._save(write)
        state.steps, state.usage, state.attempts = steps, usage, 0
        state.position += 1
        return calls

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
            await self._save(
                self._write(
                    RunStatus.QUEUED, save=False, attempts=attempts, last_error=error, delay_s=delay
                )
            )
            return RunStatus.QUEUED
        if exc.retryable:
            error["message"] = f"gave up after {attempts} attempts: {exc.message}"
        await self._save(
            self._write(
                RunStatus.FAILED,
                save=True,
                attempts=attempts,
                last_error=error,
                finish_reason="error",
            )
        )
        return RunStatus.FAILED

    # -- tool batches --------------------------------------------------------------------

    async def _run_batch(self, calls: list[ToolCall]) -> None:
        """Run a turn's unsettled calls; save each result as it settles (in settle order)."""
        immediate: list[Settlement] = []
        runnable: list[tuple[ToolCall, ToolSpec]] = []
        for call in calls:
            if call.status is CallStatus.RUNNING:
                # An at-most-once call whose worker died mid-call: never run it again.
                immediate.append(
                    Settlement(
                        call.id,
                        CallStatus.INTERRUPTED,
                        {
                            "error": "interrupted",
                            "message": "the worker stopped during this call; it may or may not "
                            "have taken effect",
                        },
                    )
                )
                continue
            tool = self.agent.tool(call.name)
            problem = self._argument_problem(call, tool)
            if problem is not None:
                immediate.append(Settlement(call.id, CallStatus.ERROR, problem.result))
            else:
                assert tool is not None
                runnable.append((call, tool))
        if immediate:
            await self._settle(immediate)
        if runnable:
            await self._execute(runnable)

    def _argument_problem(self, call: ToolCall, tool: ToolSpec | None) -> ToolOutcome | None:
        if tool is None:
            known = ", ".join(t.name for t in self.agent.tools) or "none"
            return ToolOutcome.error(
                "unknown_tool", f"no tool named {call.name!r} (tools: {known})"
            )
        if not isinstance(call.arguments, dict):
            return ToolOutcome.error("invalid_arguments", "arguments must be a JSON object")
        errors = sorted(self._validators[tool.name].iter_errors(call.arguments), key=str)
        if errors:
            details = [
                {"path": "/".join(str(p) for p in e.absolute_path), "message": e.message}
                for e in errors[:10]
            ]
            return ToolOutcome.error("invalid_arguments", errors[0].message, details=details)
        return None

    async def _execute(self, runnable: list[tuple[ToolCall, ToolSpec]]) -> None:
        gate = asyncio.Semaphore(self.agent.tool_concurrency)
        not_started: list[str] = []

        async def one(call: ToolCall, tool: ToolSpec) -> Settlement | None:
            async with gate:
                if self.control.draining():
                    not_started.append(call.id)
                    return None
                self._check_stop(boundary=False)
                if not self.control.lease_ok():
                    # Not enough lease left to be sure nobody else starts this call too.
                    raise RunStopped(StopReason.LEASE_LOST)
                context = ToolContext(
                    call.id, self.state.session_id, self.state.run_id, self.control.lease_token
                )
                try:
                    outcome = await self.tools.execute(tool, call.arguments, context)
                except Exception as exc:  # a tool bug must yield a result, never a lost turn
                    log.warning("tool %s raised %r", tool.name, exc)
                    outcome = ToolOutcome.error("tool_failed", f"{type(exc).__name__}: {exc}")
            status = CallStatus.OK if outcome.ok else CallStatus.ERROR
            return Settlement(call.id, status, outcome.result)

        tasks = [asyncio.create_task(one(call, tool)) for call, tool in runnable]
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
                    await self._settle(settled)
        finally:
            for task in (*pending, stop):
                task.cancel()
            await asyncio.gather(*pending, stop, return_exceptions=True)
        if not_started:
            raise RunStopped(StopReason.SHUTDOWN)

    async def _settle(self, settlements: list[Settlement]) -> None:
        await self._save(self._write(RunStatus.RUNNING, save=True, settlements=settlements))

    # -- stopping ------------------------------------------------------------------------

    def _check_stop(self, *, boundary: bool) -> None:
        reason = self.control.stop_reason()
        if reason is None and boundary and self.control.draining():
            reason = StopReason.SHUTDOWN
        if reason is not None:
            raise RunStopped(reason)

    async def _save_cancelled(self) -> RunStatus:
        settlements = [
            Settlement(
                c.id,
                CallStatus.CANCELLED,
                {"error": "cancelled", "message": "the run was cancelled"},
            )
            for c in self.state.unsettled_calls()
        ]
        await self._save(
            self._write(
                RunStatus.CANCELLED, save=True, settlements=settlements, finish_reason="cancelled"
            )
        )
        return RunStatus.CANCELLED

    async def _hand_back(self) -> None:
        await self._save(self._write(RunStatus.QUEUED, save=False, attempts=self.state.attempts))

    # -- bookkeeping ---------------------------------------------------------------------

    def _write(self, status: RunStatus, *, save: bool, **fields: Any) -> CheckpointWrite:
        state = self.state
        return CheckpointWrite(
            checkpoint_seq=state.next_checkpoint_seq,
            status=status,
            steps=fields.pop("steps", state.steps),
            usage=fields.pop("usage", state.usage),
            message_count=0,
            save=save,
            **fields,
        )

    async def _save(self, write: CheckpointWrite) -> None:
        """Save, then apply the write to the in-memory state (only once it is durable)."""
        state = self.state
        write.message_count = (
            state.visible_count
            + len(write.messages)
            + len(write.settlements)
            + sum(1 for c in write.calls if c.settled)
        )
        await self.journal.save(write)
        for message in write.messages:
            state.append(Message(message.seq, message.role, message.content, message.tool_call_ids))
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
