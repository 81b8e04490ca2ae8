from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.audit_event_out_actor import AuditEventOutActor
    from ..models.audit_event_out_data import AuditEventOutData


T = TypeVar("T", bound="AuditEventOut")


@_attrs_define
class AuditEventOut:
    """
    Attributes:
        action (str):
        actor (AuditEventOutActor):
        created_at (datetime.datetime):
        data (AuditEventOutData):
        id (int):
        target (str):
    """

    action: str
    actor: AuditEventOutActor
    created_at: datetime.datetime
    data: AuditEventOutData
    id: int
    target: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        action = self.action

        actor = self.actor.to_dict()

        created_at = self.created_at.isoformat()

        data = self.data.to_dict()

        id = self.id

        target = self.target

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "action": action,
                "actor": actor,
                "created_at": created_at,
                "data": data,
                "id": id,
                "target": target,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.audit_event_out_actor import AuditEventOutActor  # noqa: PLC0415
        from ..models.audit_event_out_data import AuditEventOutData  # noqa: PLC0415

        d = dict(src_dict)
        action = d.pop("action")

        actor = AuditEventOutActor.from_dict(d.pop("actor"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        data = AuditEventOutData.from_dict(d.pop("data"))

        id = d.pop("id")

        target = d.pop("target")

        audit_event_out = cls(
            action=action,
            actor=actor,
            created_at=created_at,
            data=data,
            id=id,
            target=target,
        )

        audit_event_out.additional_properties = d
        return audit_event_out

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
