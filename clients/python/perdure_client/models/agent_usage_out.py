from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.usage import Usage


T = TypeVar("T", bound="AgentUsageOut")


@_attrs_define
class AgentUsageOut:
    """
    Attributes:
        agent_id (str):
        runs (int):
        sessions (int): Sessions of the agent that have runs.
        usage (Usage):
    """

    agent_id: str
    runs: int
    sessions: int
    usage: Usage
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent_id = self.agent_id

        runs = self.runs

        sessions = self.sessions

        usage = self.usage.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_id": agent_id,
                "runs": runs,
                "sessions": sessions,
                "usage": usage,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.usage import Usage  # noqa: PLC0415

        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        runs = d.pop("runs")

        sessions = d.pop("sessions")

        usage = Usage.from_dict(d.pop("usage"))

        agent_usage_out = cls(
            agent_id=agent_id,
            runs=runs,
            sessions=sessions,
            usage=usage,
        )

        agent_usage_out.additional_properties = d
        return agent_usage_out

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
