from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="Capability")


@_attrs_define
class Capability:
    """What a planner's plan may use: each node of the plan names one, and runs as a
    child run of its agent.

        Attributes:
            agent_id (str):
            name (str):
            agent_version (int | None | Unset): A version to pin; none: the latest when it starts.
            description (str | Unset):  Default: ''.
    """

    agent_id: str
    name: str
    agent_version: int | None | Unset = UNSET
    description: str | Unset = ""

    def to_dict(self) -> dict[str, Any]:
        agent_id = self.agent_id

        name = self.name

        agent_version: int | None | Unset
        if isinstance(self.agent_version, Unset):
            agent_version = UNSET
        else:
            agent_version = self.agent_version

        description = self.description

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "agent_id": agent_id,
                "name": name,
            }
        )
        if agent_version is not UNSET:
            field_dict["agent_version"] = agent_version
        if description is not UNSET:
            field_dict["description"] = description

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        name = d.pop("name")

        def _parse_agent_version(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        agent_version = _parse_agent_version(d.pop("agent_version", UNSET))

        description = d.pop("description", UNSET)

        capability = cls(
            agent_id=agent_id,
            name=name,
            agent_version=agent_version,
            description=description,
        )

        return capability
