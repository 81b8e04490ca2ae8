from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.event_out_data import EventOutData


T = TypeVar("T", bound="EventOut")


@_attrs_define
class EventOut:
    """
    Attributes:
        created_at (datetime.datetime):
        data (EventOutData):
        id (int): Increasing and gap-free within the run's session.
        run_id (UUID):
        type_ (str):
    """

    created_at: datetime.datetime
    data: EventOutData
    id: int
    run_id: UUID
    type_: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        data = self.data.to_dict()

        id = self.id

        run_id = str(self.run_id)

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "data": data,
                "id": id,
                "run_id": run_id,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_out_data import EventOutData  # noqa: PLC0415

        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        data = EventOutData.from_dict(d.pop("data"))

        id = d.pop("id")

        run_id = UUID(d.pop("run_id"))

        type_ = d.pop("type")

        event_out = cls(
            created_at=created_at,
            data=data,
            id=id,
            run_id=run_id,
            type_=type_,
        )

        event_out.additional_properties = d
        return event_out

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
