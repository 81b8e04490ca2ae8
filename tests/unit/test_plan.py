"""A planner's plan rules: validation, templates, the view read from a transcript."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.domain.agent import AgentDefinition
from app.domain.plan import PlanInvalid, node_arguments, parse_plan

AGENT = AgentDefinition.model_validate(
    {
        "kind": "planner",
        "model": {"provider": "scripted", "script": [{"text": "x"}]},
        "capabilities": [{"name": "search", "agent_id": "s"}, {"name": "write", "agent_id": "w"}],
        "max_plan_nodes": 3,
    }
)


def reply(*nodes: dict[str, Any], **extra: Any) -> str:
    return json.dumps({"nodes": list(nodes), **extra})


def node(node_id: str, capability: str = "search", **extra: Any) -> dict[str, Any]:
    return {"id": node_id, "capability": capability, **extra}


def test_parse_plan__accepts_a_fenced_dag() -> None:
    text = "Here:\n```json\n" + reply(node("a"), node("b", "write", depends_on=["a"])) + "\n```"
    plan = parse_plan(text, AGENT, frozenset())
    assert [n.id for n in plan.nodes] == ["a", "b"]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("not json", "not JSON"),
        (reply(node("a", "fly")), "no capability 'fly'"),
        (reply(node("a"), node("a")), "used twice"),
        (reply(node("a", depends_on=["z"])), "which no node is"),
        (reply(node("a", depends_on=["b"]), node("b", depends_on=["a"])), "cycle"),
        (reply(*(node(str(i)) for i in range(4))), "at most 3"),
        (reply(node("a"), node("b", input="{{nodes.a.output}}")), "without depending"),
        (reply(node("a"), answer="q"), "answer names"),
        (json.dumps({"nodes": []}), "does not fit"),
    ],
)
def test_parse_plan__refuses_with_a_reason_for_the_model(text: str, said: str) -> None:
    with pytest.raises(PlanInvalid, match=said):
        parse_plan(text, AGENT, frozenset())


def test_parse_plan__a_new_plan_may_depend_on_kept_nodes() -> None:
    plan = parse_plan(reply(node("b", depends_on=["a"])), AGENT, frozenset({"a"}))
    assert plan.nodes[0].depends_on == ["a"]


def test_node_arguments__fill_goal_and_outputs() -> None:
    plan = parse_plan(
        reply(
            node("a"),
            node("b", input={"q": "{{goal}} / {{ nodes.a.output }}"}, depends_on=["a"]),
            node("c", input="use {{nodes.a.output}}", depends_on=["a"]),
        ),
        AGENT,
        frozenset(),
    )
    outputs = {"a": "A"}
    assert node_arguments(plan.nodes[1], "G", outputs) == {"q": "G / A"}
    assert node_arguments(plan.nodes[2], "G", outputs) == {"input": "use A"}
