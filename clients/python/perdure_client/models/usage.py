from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Usage")


@_attrs_define
class Usage:
    """
    Attributes:
        total_tokens (int):
        cost_usd (float | Unset): From the model's `price`. Default: 0.0.
        input_tokens (int | Unset):  Default: 0.
        model_calls (int | Unset):  Default: 0.
        output_tokens (int | Unset):  Default: 0.
        tool_calls (int | Unset): Calls Perdure executed (http, python). Default: 0.
        wall_time_s (float | Unset): Time driven by a worker; not queued, nor paused for a human or a client tool.
            Default: 0.0.
    """

    total_tokens: int
    cost_usd: float | Unset = 0.0
    input_tokens: int | Unset = 0
    model_calls: int | Unset = 0
    output_tokens: int | Unset = 0
    tool_calls: int | Unset = 0
    wall_time_s: float | Unset = 0.0
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        total_tokens = self.total_tokens

        cost_usd = self.cost_usd

        input_tokens = self.input_tokens

        model_calls = self.model_calls

        output_tokens = self.output_tokens

        tool_calls = self.tool_calls

        wall_time_s = self.wall_time_s

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "total_tokens": total_tokens,
            }
        )
        if cost_usd is not UNSET:
            field_dict["cost_usd"] = cost_usd
        if input_tokens is not UNSET:
            field_dict["input_tokens"] = input_tokens
        if model_calls is not UNSET:
            field_dict["model_calls"] = model_calls
        if output_tokens is not UNSET:
            field_dict["output_tokens"] = output_tokens
        if tool_calls is not UNSET:
            field_dict["tool_calls"] = tool_calls
        if wall_time_s is not UNSET:
            field_dict["wall_time_s"] = wall_time_s

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        total_tokens = d.pop("total_tokens")

        cost_usd = d.pop("cost_usd", UNSET)

        input_tokens = d.pop("input_tokens", UNSET)

        model_calls = d.pop("model_calls", UNSET)

        output_tokens = d.pop("output_tokens", UNSET)

        tool_calls = d.pop("tool_calls", UNSET)

        wall_time_s = d.pop("wall_time_s", UNSET)

        usage = cls(
            total_tokens=total_tokens,
            cost_usd=cost_usd,
            input_tokens=input_tokens,
            model_calls=model_calls,
            output_tokens=output_tokens,
            tool_calls=tool_calls,
            wall_time_s=wall_time_s,
        )

        usage.additional_properties = d
        return usage

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
