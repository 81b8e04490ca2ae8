from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.trajectory_step_tool_calls_item import TrajectoryStepToolCallsItem


T = TypeVar("T", bound="TrajectoryStep")


@_attrs_define
class TrajectoryStep:
    """
    Attributes:
        text (Any):
        tool_calls (list[TrajectoryStepToolCallsItem]):
    """

    text: Any
    tool_calls: list[TrajectoryStepToolCallsItem]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        text = self.text

        tool_calls = []
        for tool_calls_item_data in self.tool_calls:
            tool_calls_item = tool_calls_item_data.to_dict()
            tool_calls.append(tool_calls_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "text": text,
                "tool_calls": tool_calls,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.trajectory_step_tool_calls_item import TrajectoryStepToolCallsItem  # noqa: PLC0415

        d = dict(src_dict)
        text = d.pop("text")

        tool_calls = []
        _tool_calls = d.pop("tool_calls")
        for tool_calls_item_data in _tool_calls:
            tool_calls_item = TrajectoryStepToolCallsItem.from_dict(
                tool_calls_item_data
            )

            tool_calls.append(tool_calls_item)

        trajectory_step = cls(
            text=text,
            tool_calls=tool_calls,
        )

        trajectory_step.additional_properties = d
        return trajectory_step

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
