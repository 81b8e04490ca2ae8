from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.script_call import ScriptCall
    from ..models.script_error import ScriptError


T = TypeVar("T", bound="ScriptReply")


@_attrs_define
class ScriptReply:
    """
    Attributes:
        delay_s (float | Unset):  Default: 0.0.
        error (None | ScriptError | Unset):
        input_tokens (int | Unset):  Default: 0.
        output_tokens (int | Unset):  Default: 0.
        text (None | str | Unset):
        tool_calls (list[ScriptCall] | Unset):
    """

    delay_s: float | Unset = 0.0
    error: None | ScriptError | Unset = UNSET
    input_tokens: int | Unset = 0
    output_tokens: int | Unset = 0
    text: None | str | Unset = UNSET
    tool_calls: list[ScriptCall] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.script_error import ScriptError  # noqa: PLC0415

        delay_s = self.delay_s

        error: dict[str, Any] | None | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        elif isinstance(self.error, ScriptError):
            error = self.error.to_dict()
        else:
            error = self.error

        input_tokens = self.input_tokens

        output_tokens = self.output_tokens

        text: None | str | Unset
        if isinstance(self.text, Unset):
            text = UNSET
        else:
            text = self.text

        tool_calls: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.tool_calls, Unset):
            tool_calls = []
            for tool_calls_item_data in self.tool_calls:
                tool_calls_item = tool_calls_item_data.to_dict()
                tool_calls.append(tool_calls_item)

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if delay_s is not UNSET:
            field_dict["delay_s"] = delay_s
        if error is not UNSET:
            field_dict["error"] = error
        if input_tokens is not UNSET:
            field_dict["input_tokens"] = input_tokens
        if output_tokens is not UNSET:
            field_dict["output_tokens"] = output_tokens
        if text is not UNSET:
            field_dict["text"] = text
        if tool_calls is not UNSET:
            field_dict["tool_calls"] = tool_calls

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.script_call import ScriptCall  # noqa: PLC0415
        from ..models.script_error import ScriptError  # noqa: PLC0415

        d = dict(src_dict)
        delay_s = d.pop("delay_s", UNSET)

        def _parse_error(data: object) -> None | ScriptError | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_0 = ScriptError.from_dict(data)

                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ScriptError | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        input_tokens = d.pop("input_tokens", UNSET)

        output_tokens = d.pop("output_tokens", UNSET)

        def _parse_text(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        text = _parse_text(d.pop("text", UNSET))

        _tool_calls = d.pop("tool_calls", UNSET)
        tool_calls: list[ScriptCall] | Unset = UNSET
        if _tool_calls is not UNSET:
            tool_calls = []
            for tool_calls_item_data in _tool_calls:
                tool_calls_item = ScriptCall.from_dict(tool_calls_item_data)

                tool_calls.append(tool_calls_item)

        script_reply = cls(
            delay_s=delay_s,
            error=error,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            text=text,
            tool_calls=tool_calls,
        )

        return script_reply
