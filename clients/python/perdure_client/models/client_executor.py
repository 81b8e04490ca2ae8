from __future__ import annotations

from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define

T = TypeVar("T", bound="ClientExecutor")


@_attrs_define
class ClientExecutor:
    """The caller runs the tool: the run pauses as `awaiting_tool_results` until the
    outputs are posted to `POST /v1/runs/{id}/tool-results`.

        Attributes:
            type_ (Literal['client']):
    """

    type_: Literal["client"]

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = cast(Literal["client"], d.pop("type"))
        if type_ != "client":
            raise ValueError(f"type must match const 'client', got '{type_}'")

        client_executor = cls(
            type_=type_,
        )

        return client_executor
