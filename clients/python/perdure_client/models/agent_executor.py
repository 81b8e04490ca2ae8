from __future__ import annotations

from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="AgentExecutor")


@_attrs_define
class AgentExecutor:
    """A sub-agent: the call starts a child run of this agent in a child session, with
    the call's arguments as its input (`{"input": "text"}` gives that text; other
    arguments are passed as their JSON). The parent pauses as `awaiting_children` until
    the child ends; the child's output (or its failure) is the call's result.

        Attributes:
            agent_id (str):
            type_ (Literal['agent']):
            agent_version (int | None | Unset): A version to pin; none: the latest when it starts.
    """

    agent_id: str
    type_: Literal["agent"]
    agent_version: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        agent_id = self.agent_id

        type_ = self.type_

        agent_version: int | None | Unset
        if isinstance(self.agent_version, Unset):
            agent_version = UNSET
        else:
            agent_version = self.agent_version

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "agent_id": agent_id,
                "type": type_,
            }
        )
        if agent_version is not UNSET:
            field_dict["agent_version"] = agent_version

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        type_ = cast(Literal["agent"], d.pop("type"))
        if type_ != "agent":
            raise ValueError(f"type must match const 'agent', got '{type_}'")

        def _parse_agent_version(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        agent_version = _parse_agent_version(d.pop("agent_version", UNSET))

        agent_executor = cls(
            agent_id=agent_id,
            type_=type_,
            agent_version=agent_version,
        )

        return agent_executor
