from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="ToolResultPatch")


@_attrs_define
class ToolResultPatch:
    """
    Attributes:
        result (Any):
        tool_call_id (str):
    """

    result: Any
    tool_call_id: str

    def to_dict(self) -> dict[str, Any]:
        result = self.result

        tool_call_id = self.tool_call_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "result": result,
                "tool_call_id": tool_call_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        result = d.pop("result")

        tool_call_id = d.pop("tool_call_id")

        tool_result_patch = cls(
            result=result,
            tool_call_id=tool_call_id,
        )

        return tool_result_patch
