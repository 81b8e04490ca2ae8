from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.agent_out_kind import AgentOutKind
from ..models.agent_out_on_drift import AgentOutOnDrift
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.agent_out_fingerprint import AgentOutFingerprint
    from ..models.anthropic_model import AnthropicModel
    from ..models.budget import Budget
    from ..models.capability import Capability
    from ..models.open_ai_model import OpenAIModel
    from ..models.scripted_model import ScriptedModel
    from ..models.tool_spec import ToolSpec


T = TypeVar("T", bound="AgentOut")


@_attrs_define
class AgentOut:
    """
    Attributes:
        created_at (datetime.datetime):
        fingerprint (AgentOutFingerprint):
        id (str):
        model (AnthropicModel | OpenAIModel | ScriptedModel):
        version (int):
        budget (Budget | Unset): Limits on what a run (or all runs of a session) may spend; an absent limit is none.

            A limit is spent once usage reaches it. It is checked before each model call and each
            tool call, so tokens and cost may end past it by what the last model call used.
        capabilities (list[Capability] | Unset): A planner's capabilities (a planner only).
        instructions (str | Unset):  Default: ''.
        kind (AgentOutKind | Unset): `planner`: the model writes a plan over `capabilities` (a DAG of nodes, each a
            child run of a capability's agent), which is then executed. Default: AgentOutKind.AGENT.
        max_depth (int | Unset): How deep a run of this agent may be in a tree of sub-agents for it to start a child (a
            top-level run is at depth 0); a call past it is an error result the model reads. Default: 5.
        max_plan_nodes (int | Unset): The most nodes a planner's plan may have. Default: 20.
        max_replans (int | Unset): How many times a planner may ask for a new plan after a node failed. Default: 2.
        max_steps (int | Unset):  Default: 20.
        node_concurrency (int | Unset): A planner's nodes running at once. Default: 4.
        on_drift (AgentOutOnDrift | Unset):  Default: AgentOutOnDrift.WARN.
        session_budget (Budget | Unset): Limits on what a run (or all runs of a session) may spend; an absent limit is
            none.

            A limit is spent once usage reaches it. It is checked before each model call and each
            tool call, so tokens and cost may end past it by what the last model call used.
        tool_concurrency (int | Unset):  Default: 4.
        tools (list[ToolSpec] | Unset):
    """

    created_at: datetime.datetime
    fingerprint: AgentOutFingerprint
    id: str
    model: AnthropicModel | OpenAIModel | ScriptedModel
    version: int
    budget: Budget | Unset = UNSET
    capabilities: list[Capability] | Unset = UNSET
    instructions: str | Unset = ""
    kind: AgentOutKind | Unset = AgentOutKind.AGENT
    max_depth: int | Unset = 5
    max_plan_nodes: int | Unset = 20
    max_replans: int | Unset = 2
    max_steps: int | Unset = 20
    node_concurrency: int | Unset = 4
    on_drift: AgentOutOnDrift | Unset = AgentOutOnDrift.WARN
    session_budget: Budget | Unset = UNSET
    tool_concurrency: int | Unset = 4
    tools: list[ToolSpec] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.open_ai_model import OpenAIModel  # noqa: PLC0415
        from ..models.scripted_model import ScriptedModel  # noqa: PLC0415

        created_at = self.created_at.isoformat()

        fingerprint = self.fingerprint.to_dict()

        id = self.id

        model: dict[str, Any]
        if isinstance(self.model, ScriptedModel):
            model = self.model.to_dict()
        elif isinstance(self.model, OpenAIModel):
            model = self.model.to_dict()
        else:
            model = self.model.to_dict()

        version = self.version

        budget: dict[str, Any] | Unset = UNSET
        if not isinstance(self.budget, Unset):
            budget = self.budget.to_dict()

        capabilities: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.capabilities, Unset):
            capabilities = []
            for capabilities_item_data in self.capabilities:
                capabilities_item = capabilities_item_data.to_dict()
                capabilities.append(capabilities_item)

        instructions = self.instructions

        kind: str | Unset = UNSET
        if not isinstance(self.kind, Unset):
            kind = self.kind.value

        max_depth = self.max_depth

        max_plan_nodes = self.max_plan_nodes

        max_replans = self.max_replans

        max_steps = self.max_steps

        node_concurrency = self.node_concurrency

        on_drift: str | Unset = UNSET
        if not isinstance(self.on_drift, Unset):
            on_drift = self.on_drift.value

        session_budget: dict[str, Any] | Unset = UNSET
        if not isinstance(self.session_budget, Unset):
            session_budget = self.session_budget.to_dict()

        tool_concurrency = self.tool_concurrency

        tools: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.tools, Unset):
            tools = []
            for tools_item_data in self.tools:
                tools_item = tools_item_data.to_dict()
                tools.append(tools_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "created_at": created_at,
                "fingerprint": fingerprint,
                "id": id,
                "model": model,
                "version": version,
            }
        )
        if budget is not UNSET:
            field_dict["budget"] = budget
        if capabilities is not UNSET:
            field_dict["capabilities"] = capabilities
        if instructions is not UNSET:
            field_dict["instructions"] = instructions
        if kind is not UNSET:
            field_dict["kind"] = kind
        if max_depth is not UNSET:
            field_dict["max_depth"] = max_depth
        if max_plan_nodes is not UNSET:
            field_dict["max_plan_nodes"] = max_plan_nodes
        if max_replans is not UNSET:
            field_dict["max_replans"] = max_replans
        if max_steps is not UNSET:
            field_dict["max_steps"] = max_steps
        if node_concurrency is not UNSET:
            field_dict["node_concurrency"] = node_concurrency
        if on_drift is not UNSET:
            field_dict["on_drift"] = on_drift
        if session_budget is not UNSET:
            field_dict["session_budget"] = session_budget
        if tool_concurrency is not UNSET:
            field_dict["tool_concurrency"] = tool_concurrency
        if tools is not UNSET:
            field_dict["tools"] = tools

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.agent_out_fingerprint import AgentOutFingerprint  # noqa: PLC0415
        from ..models.anthropic_model import AnthropicModel  # noqa: PLC0415
        from ..models.budget import Budget  # noqa: PLC0415
        from ..models.capability import Capability  # noqa: PLC0415
        from ..models.open_ai_model import OpenAIModel  # noqa: PLC0415
        from ..models.scripted_model import ScriptedModel  # noqa: PLC0415
        from ..models.tool_spec import ToolSpec  # noqa: PLC0415

        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        fingerprint = AgentOutFingerprint.from_dict(d.pop("fingerprint"))

        id = d.pop("id")

        def _parse_model(data: object) -> AnthropicModel | OpenAIModel | ScriptedModel:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                model_type_0 = ScriptedModel.from_dict(data)

                return model_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                model_type_1 = OpenAIModel.from_dict(data)

                return model_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            model_type_2 = AnthropicModel.from_dict(data)

            return model_type_2

        model = _parse_model(d.pop("model"))

        version = d.pop("version")

        _budget = d.pop("budget", UNSET)
        budget: Budget | Unset
        if isinstance(_budget, Unset):
            budget = UNSET
        else:
            budget = Budget.from_dict(_budget)

        _capabilities = d.pop("capabilities", UNSET)
        capabilities: list[Capability] | Unset = UNSET
        if _capabilities is not UNSET:
            capabilities = []
            for capabilities_item_data in _capabilities:
                capabilities_item = Capability.from_dict(capabilities_item_data)

                capabilities.append(capabilities_item)

        instructions = d.pop("instructions", UNSET)

        _kind = d.pop("kind", UNSET)
        kind: AgentOutKind | Unset
        if isinstance(_kind, Unset):
            kind = UNSET
        else:
            kind = AgentOutKind(_kind)

        max_depth = d.pop("max_depth", UNSET)

        max_plan_nodes = d.pop("max_plan_nodes", UNSET)

        max_replans = d.pop("max_replans", UNSET)

        max_steps = d.pop("max_steps", UNSET)

        node_concurrency = d.pop("node_concurrency", UNSET)

        _on_drift = d.pop("on_drift", UNSET)
        on_drift: AgentOutOnDrift | Unset
        if isinstance(_on_drift, Unset):
            on_drift = UNSET
        else:
            on_drift = AgentOutOnDrift(_on_drift)

        _session_budget = d.pop("session_budget", UNSET)
        session_budget: Budget | Unset
        if isinstance(_session_budget, Unset):
            session_budget = UNSET
        else:
            session_budget = Budget.from_dict(_session_budget)

        tool_concurrency = d.pop("tool_concurrency", UNSET)

        _tools = d.pop("tools", UNSET)
        tools: list[ToolSpec] | Unset = UNSET
        if _tools is not UNSET:
            tools = []
            for tools_item_data in _tools:
                tools_item = ToolSpec.from_dict(tools_item_data)

                tools.append(tools_item)

        agent_out = cls(
            created_at=created_at,
            fingerprint=fingerprint,
            id=id,
            model=model,
            version=version,
            budget=budget,
            capabilities=capabilities,
            instructions=instructions,
            kind=kind,
            max_depth=max_depth,
            max_plan_nodes=max_plan_nodes,
            max_replans=max_replans,
            max_steps=max_steps,
            node_concurrency=node_concurrency,
            on_drift=on_drift,
            session_budget=session_budget,
            tool_concurrency=tool_concurrency,
            tools=tools,
        )

        return agent_out
