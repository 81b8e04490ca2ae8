from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ToolOutputIn")


@_attrs_define
class ToolOutputIn:
    """
    Attributes:
        output (Any): The tool's result: any JSON.
        tool_call_id (str):
        is_error (bool | Unset):  Default: False.
    """

    output: Any
    tool_call_id: str
    is_error: bool | Unset = False

    def to_dict(self) -> dict[str, Any]:
        output = self.output

        tool_call_id = self.tool_call_id

        is_error = self.is_error

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "output": output,
                "tool_call_id": tool_call_id,
            }
        )
        if is_error is not UNSET:
            field_dict["is_error"] = is_error

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        output = d.pop("output")

        tool_call_id = d.pop("tool_call_id")

        is_error = d.pop("is_error", UNSET)

        tool_output_in = cls(
            output=output,
            tool_call_id=tool_call_id,
            is_error=is_error,
        )

        return tool_output_in
