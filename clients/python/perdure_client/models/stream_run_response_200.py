from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="StreamRunResponse200")


@_attrs_define
class StreamRunResponse200:
    """
    Attributes:
        data (str):
        event (str | Unset): The event's type: `agent.drift`, `approval.decided`, `approval.requested`, `child.ended`,
            `child.started`, `run.budget_exceeded`, `run.cancel_requested`, `run.cancelled`, `run.failed`, `run.finished`,
            `run.paused`, `run.queued`, `run.retrying`, `run.started`, `run.taken_over`, `tool.settled`, `tool.started`,
            `tool_results.received`, `turn.saved` (data: `EventOut`), or `message.delta` (data: `MessageDelta`).
        id (str | Unset): The event's id, for Last-Event-ID (none on `message.delta`).
    """

    data: str
    event: str | Unset = UNSET
    id: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = self.data

        event = self.event

        id = self.id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "data": data,
            }
        )
        if event is not UNSET:
            field_dict["event"] = event
        if id is not UNSET:
            field_dict["id"] = id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        data = d.pop("data")

        event = d.pop("event", UNSET)

        id = d.pop("id", UNSET)

        stream_run_response_200 = cls(
            data=data,
            event=event,
            id=id,
        )

        stream_run_response_200.additional_properties = d
        return stream_run_response_200

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
