"""A planner's plan and ledger: pure rules, read from the run's own transcript.

A planner run keeps no state beside its transcript (docs/design.md, "The planner"):

- a **plan** is the model's reply saved as an assistant turn whose `provider_data`
  carries `{"planner": {"run_id", "plan": <the validated plan>, "index": n}}`: frozen,
  since the log is append-only; a rejected reply is marked `"rejected": <why>` and
  followed by a user message telling the model why;
- the **nodes** run as calls of synthetic assistant turns (`{"planner": {"run_id",
  "nodes": {call id: node id}, "index": n}}`), each call an agent tool's call of its
  capability, so a node is a child run through the sub-agent machinery unchanged;
- the **ledger** is those calls with their results (status, child run, output, usage).

Templates: a string anywhere in a node's `input` may hold `{{nodes.<id>.output}}`, the
output of node `<id>` (which must be one of its `depends_on`), and `{{goal}}`, the run's
input text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from graphlib import CycleError, TopologicalSorter
from typing import Any

from pydantic import Field, ValidationError

from app.domain.agent import TOOL_NAME_PATTERN, AgentDefinition
from app.domain.run import CallStatus, Entry, Message, RunState, ToolCall
from app.domain.strict import Strict

MARK = "planner"
# Every node call's id starts with this: a node's end wakes its planner at once (the
# next ready node starts then), where a sub-agent's parent waits for its whole batch.
NODE_CALL_PREFIX = "node."
TEMPLATE = re.compile(r"\{\{\s*(goal|nodes\.([A-Za-z0-9_\-]{1,64})\.output)\s*\}\}")


class PlanNode(Strict):
    id: str = Field(pattern=TOOL_NAME_PATTERN)
    capability: str = Field(min_length=1, max_length=64)
    input: str | dict[str, Any] = Field(default="")
    depends_on: list[str] = Field(default_factory=list, max_length=200)


class Plan(Strict):
    nodes: list[PlanNode] = Field(min_length=1)
    # A node whose output is the run's answer; none: the model writes it from the ledger.
    answer: str | None = None

    def node(self, node_id: str) -> PlanNode | None:
        return next((n for n in self.nodes if n.id == node_id), None)


class PlanInvalid(ValueError):
    """The model's plan cannot be run; the message is what the model is told."""


def parse_plan(text: str | None, agent: AgentDefinition, kept: frozenset[str]) -> Plan:
    """The plan in a model's reply, validated: JSON (a fenced block is fine), known
    capabilities, unique ids, dependencies that exist, no cycle, at most
    `max_plan_nodes` nodes, templates that name a dependency.

    `kept` are nodes completed under an earlier plan: a new plan may depend on them,
    and a node with such an id is not run again.

    Raises:
        PlanInvalid: why, in words meant for the model.
    """
    raw = _json_text(text or "")
    try:
        plan = Plan.model_validate(json.loads(raw))
    except json.JSONDecodeError as exc:
        raise PlanInvalid(f"the reply is not JSON: {exc}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(root)"
        raise PlanInvalid(f"the plan does not fit the format at {where}: {first['msg']}") from None
    if len(plan.nodes) > agent.max_plan_nodes:
        raise PlanInvalid(
            f"the plan has {len(plan.nodes)} nodes; at most {agent.max_plan_nodes} are allowed"
        )
    ids = [n.id for n in plan.nodes]
    duplicate = next((i for i in ids if ids.count(i) > 1), None)
    if duplicate is not None:
        raise PlanInvalid(f"node id {duplicate!r} is used twice")
    known = {c.name for c in agent.capabilities}
    for node in plan.nodes:
        if node.capability not in known:
            raise PlanInvalid(
                f"node {node.id!r}: no capability {node.capability!r} "
                f"(capabilities: {', '.join(sorted(known))})"
            )
        for dependency in node.depends_on:
            if dependency not in ids and dependency not in kept:
                raise PlanInvalid(f"node {node.id!r} depends on {dependency!r}, which no node is")
        for named in template_nodes(node.input):
            if named not in node.depends_on:
                raise PlanInvalid(
                    f"node {node.id!r} uses the output of {named!r} without depending on it"
                )
    try:
        TopologicalSorter({n.id: set(n.depends_on) for n in plan.nodes}).prepare()
    except CycleError as exc:
        cycle = " -> ".join(str(i) for i in exc.args[1])
        raise PlanInvalid(f"the plan has a cycle: {cycle}") from None
    if plan.answer is not None and plan.answer not in ids and plan.answer not in kept:
        raise PlanInvalid(f"answer names {plan.answer!r}, which no node is")
    return plan


def _json_text(text: str) -> str:
    """The JSON object in a reply: the reply itself, a fenced block, or from its first
    `{` to its last `}` (models wrap JSON in prose)."""
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.DOTALL)
    if fenced:
        return fenced.group(1).strip()
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if 0 <= start < end else text


def template_nodes(value: Any) -> set[str]:
    """The nodes whose outputs a node's input uses."""
    if isinstance(value, str):
        return {m.group(2) for m in TEMPLATE.finditer(value) if m.group(2)}
    if isinstance(value, dict):
        return {n for v in value.values() for n in template_nodes(v)}
    if isinstance(value, list):
        return {n for v in value for n in template_nodes(v)}
    return set()


def render(value: Any, goal: str, outputs: dict[str, str]) -> Any:
    """A node's input with its templates filled in."""
    if isinstance(value, str):

        def fill(match: re.Match[str]) -> str:
            return goal if match.group(2) is None else outputs.get(match.group(2), "")

        return TEMPLATE.sub(fill, value)
    if isinstance(value, dict):
        return {k: render(v, goal, outputs) for k, v in value.items()}
    if isinstance(value, list):
        return [render(v, goal, outputs) for v in value]
    return value


def node_arguments(node: PlanNode, goal: str, outputs: dict[str, str]) -> dict[str, Any]:
    """A node's call arguments: `{"input": text}` (the child's user message) for a
    string input, the rendered object otherwise."""
    rendered = render(node.input, goal, outputs)
    return {"input": rendered} if isinstance(rendered, str) else rendered


def node_call_id(run_id: str, index: int, node_id: str) -> str:
    """A node's call id: unique in the session (per run, plan and node), so a node that
    a re-plan runs again is a new call and a new child."""
    return f"{NODE_CALL_PREFIX}{run_id[:8]}.{index}.{node_id}"


def is_node_call(call_id: str | None) -> bool:
    return call_id is not None and call_id.startswith(NODE_CALL_PREFIX)


def mark_of(entry: Entry) -> dict[str, Any] | None:
    if isinstance(entry, Message) and entry.role == "assistant":
        mark = entry.provider_data.get(MARK)
        return mark if isinstance(mark, dict) else None
    return None


def is_node_turn(entry: Entry) -> bool:
    mark = mark_of(entry)
    return mark is not None and "nodes" in mark


# -- the ledger --------------------------------------------------------------------------


@dataclass
class LedgerEntry:
    node: str
    capability: str
    tool_call_id: str
    plan_index: int
    status: str  # running, or the call's settled status (ok, error, cancelled, ...)
    child_run_id: str | None = None
    child_session_id: str | None = None
    output: Any = None
    error: str | None = None
    usage: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "capability": self.capability,
            "tool_call_id": self.tool_call_id,
            "plan_index": self.plan_index,
            "status": self.status,
            "child_run_id": self.child_run_id,
            "child_session_id": self.child_session_id,
            "output": self.output,
            "error": self.error,
            "usage": self.usage,
        }


@dataclass
class PlannerView:
    """Where a planner run is, read from its transcript."""

    plans: list[Plan] = field(default_factory=list)
    ledger: list[LedgerEntry] = field(default_factory=list)
    # The last plan reply was rejected: the model is asked again.
    rejected: bool = False
    # The last message of the run is a user message after the last plan or node turn: a
    # prompt saved and not answered yet.
    prompt_pending: bool = False
    running: list[ToolCall] = field(default_factory=list)

    @property
    def plan(self) -> Plan | None:
        return self.plans[-1] if self.plans else None

    @property
    def replans(self) -> int:
        return max(len(self.plans) - 1, 0)

    def completed(self) -> dict[str, LedgerEntry]:
        """Nodes done under any plan: kept across re-plans, never run again."""
        return {e.node: e for e in self.ledger if e.status == CallStatus.OK.value}

    def started(self) -> set[str]:
        """Nodes of the current plan started (done, running or failed) under it."""
        index = len(self.plans) - 1
        return {e.node for e in self.ledger if e.plan_index == index} | set(self.completed())

    def failed(self) -> LedgerEntry | None:
        """A node of the current plan that failed under it, if one did."""
        index = len(self.plans) - 1
        done = self.completed()
        return next(
            (
                e
                for e in self.ledger
                if e.plan_index == index
                and e.status not in (CallStatus.OK.value, "running")
                and e.node not in done
            ),
            None,
        )

    def frontier(self) -> list[str]:
        """Nodes of the current plan ready to start: not started, dependencies done."""
        plan = self.plan
        if plan is None:
            return []
        done, started = set(self.completed()), self.started()
        return [n.id for n in plan.nodes if n.id not in started and set(n.depends_on) <= done]

    def all_done(self) -> bool:
        plan = self.plan
        return plan is not None and {n.id for n in plan.nodes} <= set(self.completed())


def planner_view(entries: list[Entry], run_id: str) -> PlannerView:
    """A planner run's plans, ledger and pending prompt, from its session's entries."""
    view = PlannerView()
    calls = {e.id: e for e in entries if isinstance(e, ToolCall)}
    mine = False
    for entry in entries:
        mark = mark_of(entry)
        if mark is not None and mark.get("run_id") == run_id:
            mine = True
            view.prompt_pending = False
            if "plan" in mark:
                view.plans.append(Plan.model_validate(mark["plan"]))
                view.rejected = False
            elif "rejected" in mark:
                view.rejected = True
            for call_id, node_id in mark.get("nodes", {}).items():
                view.ledger.append(_ledger_entry(calls[call_id], node_id, int(mark["index"])))
        elif mine and isinstance(entry, Message) and entry.role == "user":
            view.prompt_pending = True
        elif mine and isinstance(entry, Message) and entry.role == "assistant":
            mine = False  # another run's turn: this run's log ended before it
    view.running = [calls[e.tool_call_id] for e in view.ledger if e.status == "running"]
    return view


def _ledger_entry(call: ToolCall, node_id: str, index: int) -> LedgerEntry:
    entry = LedgerEntry(node_id, call.name, call.id, index, "running")
    if call.child is not None:
        entry.child_run_id = str(call.child.run_id)
        entry.child_session_id = call.child.session_id
    if not call.settled:
        return entry
    entry.status = call.status.value
    result = call.result if isinstance(call.result, dict) else {}
    entry.child_run_id = result.get("run_id", entry.child_run_id)
    entry.child_session_id = result.get("session_id", entry.child_session_id)
    entry.usage = result.get("usage")
    if call.status is CallStatus.OK:
        entry.output = result.get("output")
    else:
        entry.error = str(result.get("message") or result.get("error") or call.status.value)
    return entry


# -- prompts -----------------------------------------------------------------------------

FORMAT = (
    'Reply with a plan as one JSON object and nothing else: {"nodes": [{"id": "...", '
    '"capability": "...", "input": "...", "depends_on": ["..."]}], "answer": null}. '
    "Each node runs one capability with its input (a string, or an object). A node "
    "starts once every node in its depends_on has finished; in its input, "
    "{{nodes.<id>.output}} is the output of a node it depends on, and {{goal}} is the "
    'goal. Set "answer" to a node\'s id to make its output the final answer, or leave '
    "it null to be asked for the answer once every node has finished."
)


def system_prompt(agent: AgentDefinition) -> str:
    """The planner's system message: its instructions, its capabilities, the format."""
    listed = "\n".join(f"- {c.name}: {c.description}".rstrip(": ") for c in agent.capabilities)
    head = f"{agent.instructions}\n\n" if agent.instructions else ""
    return (
        f"{head}You are a planner. Capabilities:\n{listed}\n\n{FORMAT} "
        f"At most {agent.max_plan_nodes} nodes."
    )


def rejected_prompt(reason: str) -> str:
    return f"That plan cannot be run: {reason}. {FORMAT}"


def _ledger_text(view: PlannerView) -> str:
    rows = [
        {k: v for k, v in e.as_dict().items() if k in ("node", "status", "output", "error")}
        for e in view.ledger
    ]
    return json.dumps(rows, ensure_ascii=False)


def replan_prompt(view: PlannerView, failed: LedgerEntry) -> str:
    plan = view.plan
    assert plan is not None
    return (
        f"Node {failed.node!r} failed: {failed.error}. The plan was "
        f"{plan.model_dump_json()}; the ledger of executed nodes is {_ledger_text(view)}. "
        f"Nodes that finished ({', '.join(sorted(view.completed())) or 'none'}) are kept "
        f"and never run again: a new plan may depend on them. {FORMAT}"
    )


def synthesis_prompt(view: PlannerView) -> str:
    return (
        f"Every node has finished. The ledger of executed nodes is {_ledger_text(view)}. "
        "Write the final answer to the goal from it."
    )


def goal_of(state: RunState) -> str:
    """The run's input as text (what `{{goal}}` stands for)."""
    texts = [str(m.get("content", "")) for m in state.input if m.get("role", "user") == "user"]
    return "\n".join(texts)
