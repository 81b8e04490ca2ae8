from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="AgentSummaryOut")


@_attrs_define
class AgentSummaryOut:
    """
    Attributes:
        created_at (datetime.datetime):
        id (str):
        latest_version (int):
        updated_at (datetime.datetime): When its latest version was made.
    """

    created_at: datetime.datetime
    id: str
    latest_version: int
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        id = self.id

        latest_version = self.latest_version

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "id": id,
                "latest_version": latest_version,
                "updated_at": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = d.pop("id")

        latest_version = d.pop("latest_version")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        agent_summary_out = cls(
            created_at=created_at,
            id=id,
            latest_version=latest_version,
            updated_at=updated_at,
        )

        agent_summary_out.additional_properties = d
        return agent_summary_out

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
