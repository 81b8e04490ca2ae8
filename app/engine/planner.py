"""The planner loop: ask for a plan once, freeze it, run its nodes as child runs.

A planner is an `AgentLoop` whose steps are decided from its plan and ledger
(`app/domain/plan.py`) instead of by the model's tool calls. Everything durable goes
through the same journal: the plan is a saved assistant turn, the nodes are agent-tool
calls of synthetic turns (so the sub-agent machinery starts, awaits and settles them:
`awaiting_children`, no lease held, woken by each node's end), and each settled node is
one fenced checkpoint. On every drive the loop reads where the run is from its
transcript, so a resumed planner never asks for its plan again and never starts a
completed node twice.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from app.domain.plan import (
    MARK,
    LedgerEntry,
    PlanInvalid,
    PlannerView,
    goal_of,
    is_node_turn,
    node_arguments,
    node_call_id,
    parse_plan,
    planner_view,
    rejected_prompt,
    replan_prompt,
    synthesis_prompt,
    system_prompt,
)
from app.domain.run import (
    CallStatus,
    ChildRun,
    Message,
    NewChild,
    NewMessage,
    RunStatus,
    Settlement,
    ToolCall,
    child_session_id,
)
from app.engine.loop import INTERRUPTED, AgentLoop, child_input, child_result, error_result
from app.engine.transcript import model_messages
from app.providers.base import ModelError, ModelReply

log = logging.getLogger("perdure.engine")


class PlannerLoop(AgentLoop):
    async def _run(self) -> RunStatus:
        self._check_stop(boundary=False)
        if not self.state.input_appended:
            await self._append_input()
        while True:
            self._check_stop(boundary=True)
            rest = await self._advance(planner_view(self.state.entries, str(self.state.run_id)))
            if rest is not None:
                return rest

    def _system_prompt(self) -> str:
        return system_prompt(self.agent)

    async def _advance(self, view: PlannerView) -> RunStatus | None:
        """One move from where the run is; the status it rests in, or None to go on."""
        if await self._settle_ended(view):
            return None
        if view.plan is None or view.rejected:
            return await self._plan_step(view, None)
        failed = view.failed()
        if failed is not None:
            if view.running:
                # The others finish first: the re-plan sees the whole ledger.
                return await self._await_nodes(view, [])
            if view.replans >= self.agent.max_replans:
                return await self._node_failed(view, failed)
            return await self._plan_step(view, replan_prompt(view, failed))
        if view.all_done():
            return await self._finish(view)
        room = max(self.agent.node_concurrency - len(view.running), 0)
        return await self._await_nodes(view, view.frontier()[:room])

    # -- nodes ---------------------------------------------------------------------------

    async def _settle_ended(self, view: PlannerView) -> bool:
        """Record each ended node's result, one save per node (the ledger after each)."""
        ended = [c for c in view.running if c.child is not None and c.child.ended]
        for call in ended:
            assert call.child is not None
            await self._commit(RunStatus.RUNNING, settlements=[node_result(call.id, call.child)])
        return bool(ended)

    async def _await_nodes(self, view: PlannerView, ready: list[str]) -> RunStatus:
        """Start the ready nodes (a synthetic turn whose calls are the nodes, and their
        child runs, in one save) and pause until a node ends."""
        if not ready and not view.running:
            return await self._fail("plan_stuck", "no node can start and none is running")
        if ready and self.state.depth >= self.agent.max_depth:
            return await self._fail(
                "depth_exceeded",
                f"this run is {self.state.depth} deep in a tree of sub-agents, the most its "
                f"agent allows (max_depth {self.agent.max_depth}) for starting a node",
            )
        plan = view.plan
        assert plan is not None
        index = len(view.plans) - 1
        goal = goal_of(self.state)
        outputs = {k: str(v.output or "") for k, v in view.completed().items()}
        message_seq = self.state.next_seq
        calls: list[ToolCall] = []
        children: list[NewChild] = []
        for offset, node_id in enumerate(ready):
            node = plan.node(node_id)
            assert node is not None
            capability = next(c for c in self.agent.capabilities if c.name == node.capability)
            call_id = node_call_id(str(self.state.run_id), index, node.id)
            arguments = node_arguments(node, goal, outputs)
            calls.append(
                ToolCall(
                    call_id,
                    message_seq + 1 + offset,
                    message_seq,
                    offset,
                    node.capability,
                    arguments,
                )
            )
            children.append(
                NewChild(
                    run_id=uuid.uuid4(),
                    tool_call_id=call_id,
                    session_id=child_session_id(self.state.session_id, call_id),
                    agent_id=capability.agent_id,
                    agent_version=capability.agent_version,
                    input=child_input(arguments),
                )
            )
        messages: list[NewMessage] = []
        if calls:
            mark: dict[str, Any] = {"run_id": str(self.state.run_id), "index": index}
            mark["nodes"] = {c.id: node_id for c, node_id in zip(calls, ready, strict=True)}
            messages = [
                NewMessage(message_seq, "assistant", None, [c.id for c in calls], {MARK: mark})
            ]
        await self._commit(
            RunStatus.AWAITING_CHILDREN, messages=messages, calls=calls, children=children
        )
        return RunStatus.AWAITING_CHILDREN

    # -- model steps ---------------------------------------------------------------------

    async def _plan_step(self, view: PlannerView, prompt: str | None) -> RunStatus | None:
        """Ask the model for a plan (after `prompt`, a re-plan's question, if given); save
        it frozen, or save why it was rejected, for the model to read next step."""
        reply = await self._ask(view, prompt)
        if not isinstance(reply, ModelReply):
            return reply
        mark: dict[str, Any] = {"run_id": str(self.state.run_id)}
        after: list[NewMessage] = []
        try:
            plan = parse_plan(reply.text, self.agent, frozenset(view.completed()))
            mark.update(plan=plan.model_dump(mode="json"), index=len(view.plans))
        except PlanInvalid as exc:
            mark["rejected"] = str(exc)
            after = [NewMessage(self.state.next_seq + 1, "user", rejected_prompt(str(exc)))]
            log.info("run %s: plan rejected: %s", self.state.run_id, exc)
        await self._save_reply(reply, mark, RunStatus.RUNNING, after)
        return None

    async def _finish(self, view: PlannerView) -> RunStatus | None:
        """The answer: the node the plan named, or the model's synthesis of the ledger."""
        plan = view.plan
        assert plan is not None
        if plan.answer is not None:
            output = view.completed()[plan.answer].output
            await self._commit(RunStatus.FINISHED, output=str(output or ""), finish_reason="stop")
            return RunStatus.FINISHED
        reply = await self._ask(view, synthesis_prompt(view))
        if not isinstance(reply, ModelReply):
            return reply
        mark: dict[str, Any] = {"run_id": str(self.state.run_id), "answer": True}
        await self._save_reply(reply, mark, RunStatus.FINISHED, [])
        return RunStatus.FINISHED

    async def _ask(self, view: PlannerView, prompt: str | None) -> ModelReply | RunStatus:
        """One model call within the run's steps and budget, after saving `prompt` (once:
        a resumed run finds it saved and unanswered)."""
        if self.state.steps >= self.state.max_steps:
            return await self._fail(
                "max_steps", f"no plan or answer within max_steps ({self.state.max_steps})"
            )
        exceeded = self._over_budget(before_tool_call=False)
        if exceeded is not None:
            return await self._end_over_budget(exceeded)
        if prompt is not None and not view.prompt_pending:
            await self._commit(
                RunStatus.RUNNING, messages=[NewMessage(self.state.next_seq, "user", prompt)]
            )
        try:
            return await self._call_model()
        except ModelError as exc:
            return await self._model_failed(exc)

    async def _save_reply(
        self, reply: ModelReply, mark: dict[str, Any], status: RunStatus, after: list[NewMessage]
    ) -> None:
        turn = NewMessage(
            self.state.next_seq, "assistant", reply.text, [], {**reply.provider_data, MARK: mark}
        )
        finished = status is RunStatus.FINISHED
        await self._commit(
            status,
            messages=[turn, *after],
            steps=self.state.steps + 1,
            usage=self._usage_after(reply),
            output=reply.text if finished else None,
            finish_reason="stop" if finished else None,
        )
        self.state.steps += 1
        self.state.attempts = 0
        self.state.position += 1

    # -- ends ----------------------------------------------------------------------------

    async def _node_failed(self, view: PlannerView, failed: LedgerEntry) -> RunStatus:
        return await self._fail(
            "node_failed",
            f"node {failed.node!r} failed and the re-plan budget is spent "
            f"({view.replans} of max_replans {self.agent.max_replans}): {failed.error}",
            node=failed.node,
            child_run_id=failed.child_run_id,
        )

    async def _fail(self, code: str, message: str, **data: Any) -> RunStatus:
        error = {"code": code, "retryable": False, "message": message, **data}
        await self._commit(RunStatus.FAILED, last_error=error, finish_reason="error")
        return RunStatus.FAILED

    async def _save_cancelled(self) -> RunStatus:
        cancelled = error_result("cancelled", "the run was cancelled")
        settlements = [
            Settlement(c.id, CallStatus.INTERRUPTED, INTERRUPTED)
            if c.status is CallStatus.RUNNING
            else Settlement(c.id, CallStatus.CANCELLED, cancelled)
            for c in self.state.calls.values()
            if not c.settled
        ]
        await self._commit(RunStatus.CANCELLED, settlements=settlements, finish_reason="cancelled")
        return RunStatus.CANCELLED

    def _model_messages(self) -> list[dict[str, Any]]:
        # The model sees its goal, its plans and the prompts; nodes reach it through the
        # ledger in a prompt, never as tool calls it did not make.
        turns = {e.seq for e in self.state.entries if is_node_turn(e)}
        kept = [
            e
            for e in self.state.entries
            if not (isinstance(e, Message) and e.seq in turns)
            and not (isinstance(e, ToolCall) and e.message_seq in turns)
        ]
        return model_messages(kept)


def node_result(call_id: str, child: ChildRun) -> Settlement:
    """An ended node's result: its child's, with what the child spent."""
    settled = child_result(call_id, child)
    settled.result = {**settled.result, "usage": child.usage}
    return settled
