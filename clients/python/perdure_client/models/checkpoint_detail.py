from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.message_out import MessageOut
    from ..models.usage import Usage


T = TypeVar("T", bound="CheckpointDetail")


@_attrs_define
class CheckpointDetail:
    """
    Attributes:
        fingerprint (None | str):
        message_count (int):
        messages (list[MessageOut]):
        run_id (str):
        saved_at (datetime.datetime):
        seq (int):
        status (str):
        step (int):
        usage (Usage):
    """

    fingerprint: None | str
    message_count: int
    messages: list[MessageOut]
    run_id: str
    saved_at: datetime.datetime
    seq: int
    status: str
    step: int
    usage: Usage
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        fingerprint: None | str
        fingerprint = self.fingerprint

        message_count = self.message_count

        messages = []
        for messages_item_data in self.messages:
            messages_item = messages_item_data.to_dict()
            messages.append(messages_item)

        run_id = self.run_id

        saved_at = self.saved_at.isoformat()

        seq = self.seq

        status = self.status

        step = self.step

        usage = self.usage.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "fingerprint": fingerprint,
                "message_count": message_count,
                "messages": messages,
                "run_id": run_id,
                "saved_at": saved_at,
                "seq": seq,
                "status": status,
                "step": step,
                "usage": usage,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.message_out import MessageOut  # noqa: PLC0415
        from ..models.usage import Usage  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_fingerprint(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        fingerprint = _parse_fingerprint(d.pop("fingerprint"))

        message_count = d.pop("message_count")

        messages = []
        _messages = d.pop("messages")
        for messages_item_data in _messages:
            messages_item = MessageOut.from_dict(messages_item_data)

            messages.append(messages_item)

        run_id = d.pop("run_id")

        saved_at = datetime.datetime.fromisoformat(d.pop("saved_at"))

        seq = d.pop("seq")

        status = d.pop("status")

        step = d.pop("step")

        usage = Usage.from_dict(d.pop("usage"))

        checkpoint_detail = cls(
            fingerprint=fingerprint,
            message_count=message_count,
            messages=messages,
            run_id=run_id,
            saved_at=saved_at,
            seq=seq,
            status=status,
            step=step,
            usage=usage,
        )

        checkpoint_detail.additional_properties = d
        return checkpoint_detail

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
