from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.delivery_out_status import DeliveryOutStatus

T = TypeVar("T", bound="DeliveryOut")


@_attrs_define
class DeliveryOut:
    """
    Attributes:
        attempts (int):
        created_at (datetime.datetime):
        event_id (int):
        finished_at (datetime.datetime | None):
        last_error (None | str):
        last_status (int | None): The HTTP status of the last attempt.
        next_attempt_at (datetime.datetime | None): When it is tried next (pending).
        session_id (str):
        status (DeliveryOutStatus):
        type_ (None | str): None once the event was pruned.
    """

    attempts: int
    created_at: datetime.datetime
    event_id: int
    finished_at: datetime.datetime | None
    last_error: None | str
    last_status: int | None
    next_attempt_at: datetime.datetime | None
    session_id: str
    status: DeliveryOutStatus
    type_: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempts = self.attempts

        created_at = self.created_at.isoformat()

        event_id = self.event_id

        finished_at: None | str
        if isinstance(self.finished_at, datetime.datetime):
            finished_at = self.finished_at.isoformat()
        else:
            finished_at = self.finished_at

        last_error: None | str
        last_error = self.last_error

        last_status: int | None
        last_status = self.last_status

        next_attempt_at: None | str
        if isinstance(self.next_attempt_at, datetime.datetime):
            next_attempt_at = self.next_attempt_at.isoformat()
        else:
            next_attempt_at = self.next_attempt_at

        session_id = self.session_id

        status = self.status.value

        type_: None | str
        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempts": attempts,
                "created_at": created_at,
                "event_id": event_id,
                "finished_at": finished_at,
                "last_error": last_error,
                "last_status": last_status,
                "next_attempt_at": next_attempt_at,
                "session_id": session_id,
                "status": status,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        attempts = d.pop("attempts")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        event_id = d.pop("event_id")

        def _parse_finished_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                finished_at_type_0 = datetime.datetime.fromisoformat(data)

                return finished_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        finished_at = _parse_finished_at(d.pop("finished_at"))

        def _parse_last_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_error = _parse_last_error(d.pop("last_error"))

        def _parse_last_status(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        last_status = _parse_last_status(d.pop("last_status"))

        def _parse_next_attempt_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_attempt_at_type_0 = datetime.datetime.fromisoformat(data)

                return next_attempt_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        next_attempt_at = _parse_next_attempt_at(d.pop("next_attempt_at"))

        session_id = d.pop("session_id")

        status = DeliveryOutStatus(d.pop("status"))

        def _parse_type_(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        type_ = _parse_type_(d.pop("type"))

        delivery_out = cls(
            attempts=attempts,
            created_at=created_at,
            event_id=event_id,
            finished_at=finished_at,
            last_error=last_error,
            last_status=last_status,
            next_attempt_at=next_attempt_at,
            session_id=session_id,
            status=status,
            type_=type_,
        )

        delivery_out.additional_properties = d
        return delivery_out

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
