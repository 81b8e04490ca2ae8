from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="Budget")


@_attrs_define
class Budget:
    """Limits on what a run (or all runs of a session) may spend; an absent limit is none.

    A limit is spent once usage reaches it. It is checked before each model call and each
    tool call, so tokens and cost may end past it by what the last model call used.

        Attributes:
            max_cost_usd (float | None | Unset):
            max_input_tokens (int | None | Unset):
            max_model_calls (int | None | Unset):
            max_output_tokens (int | None | Unset):
            max_tool_calls (int | None | Unset):
            max_wall_time_s (float | None | Unset): Seconds the run is driven by a worker, from its first claim; time paused
                for a human or a client tool, queued, or waiting out a retry is not counted.
    """

    max_cost_usd: float | None | Unset = UNSET
    max_input_tokens: int | None | Unset = UNSET
    max_model_calls: int | None | Unset = UNSET
    max_output_tokens: int | None | Unset = UNSET
    max_tool_calls: int | None | Unset = UNSET
    max_wall_time_s: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        max_cost_usd: float | None | Unset
        if isinstance(self.max_cost_usd, Unset):
            max_cost_usd = UNSET
        else:
            max_cost_usd = self.max_cost_usd

        max_input_tokens: int | None | Unset
        if isinstance(self.max_input_tokens, Unset):
            max_input_tokens = UNSET
        else:
            max_input_tokens = self.max_input_tokens

        max_model_calls: int | None | Unset
        if isinstance(self.max_model_calls, Unset):
            max_model_calls = UNSET
        else:
            max_model_calls = self.max_model_calls

        max_output_tokens: int | None | Unset
        if isinstance(self.max_output_tokens, Unset):
            max_output_tokens = UNSET
        else:
            max_output_tokens = self.max_output_tokens

        max_tool_calls: int | None | Unset
        if isinstance(self.max_tool_calls, Unset):
            max_tool_calls = UNSET
        else:
            max_tool_calls = self.max_tool_calls

        max_wall_time_s: float | None | Unset
        if isinstance(self.max_wall_time_s, Unset):
            max_wall_time_s = UNSET
        else:
            max_wall_time_s = self.max_wall_time_s

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if max_cost_usd is not UNSET:
            field_dict["max_cost_usd"] = max_cost_usd
        if max_input_tokens is not UNSET:
            field_dict["max_input_tokens"] = max_input_tokens
        if max_model_calls is not UNSET:
            field_dict["max_model_calls"] = max_model_calls
        if max_output_tokens is not UNSET:
            field_dict["max_output_tokens"] = max_output_tokens
        if max_tool_calls is not UNSET:
            field_dict["max_tool_calls"] = max_tool_calls
        if max_wall_time_s is not UNSET:
            field_dict["max_wall_time_s"] = max_wall_time_s

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_max_cost_usd(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        max_cost_usd = _parse_max_cost_usd(d.pop("max_cost_usd", UNSET))

        def _parse_max_input_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_input_tokens = _parse_max_input_tokens(d.pop("max_input_tokens", UNSET))

        def _parse_max_model_calls(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_model_calls = _parse_max_model_calls(d.pop("max_model_calls", UNSET))

        def _parse_max_output_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_output_tokens = _parse_max_output_tokens(d.pop("max_output_tokens", UNSET))

        def _parse_max_tool_calls(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_tool_calls = _parse_max_tool_calls(d.pop("max_tool_calls", UNSET))

        def _parse_max_wall_time_s(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        max_wall_time_s = _parse_max_wall_time_s(d.pop("max_wall_time_s", UNSET))

        budget = cls(
            max_cost_usd=max_cost_usd,
            max_input_tokens=max_input_tokens,
            max_model_calls=max_model_calls,
            max_output_tokens=max_output_tokens,
            max_tool_calls=max_tool_calls,
            max_wall_time_s=max_wall_time_s,
        )

        return budget
