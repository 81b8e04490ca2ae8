from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ParentLink")


@_attrs_define
class ParentLink:
    """A parent in a run's tree of sub-agents: the run, and its call that started the child.

    Attributes:
        agent_id (str):
        run_id (str):
        session_id (str):
        tool_call_id (str):
    """

    agent_id: str
    run_id: str
    session_id: str
    tool_call_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent_id = self.agent_id

        run_id = self.run_id

        session_id = self.session_id

        tool_call_id = self.tool_call_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_id": agent_id,
                "run_id": run_id,
                "session_id": session_id,
                "tool_call_id": tool_call_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        run_id = d.pop("run_id")

        session_id = d.pop("session_id")

        tool_call_id = d.pop("tool_call_id")

        parent_link = cls(
            agent_id=agent_id,
            run_id=run_id,
            session_id=session_id,
            tool_call_id=tool_call_id,
        )

        parent_link.additional_properties = d
        return parent_link

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
