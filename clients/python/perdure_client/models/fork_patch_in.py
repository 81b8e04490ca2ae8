from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.input_message import InputMessage
    from ..models.patch_message import PatchMessage
    from ..models.tool_result_patch import ToolResultPatch


T = TypeVar("T", bound="ForkPatchIn")


@_attrs_define
class ForkPatchIn:
    """
    Attributes:
        append_input (list[InputMessage] | None | str | Unset): A user message sent after any calls still pending.
        messages (list[PatchMessage] | None | Unset): Replaces the transcript (applied first).
        tool_result (None | ToolResultPatch | Unset): Replaces a call's result in place, or records a missing one.
    """

    append_input: list[InputMessage] | None | str | Unset = UNSET
    messages: list[PatchMessage] | None | Unset = UNSET
    tool_result: None | ToolResultPatch | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.tool_result_patch import ToolResultPatch  # noqa: PLC0415

        append_input: list[dict[str, Any]] | None | str | Unset
        if isinstance(self.append_input, Unset):
            append_input = UNSET
        elif isinstance(self.append_input, list):
            append_input = []
            for append_input_type_1_item_data in self.append_input:
                append_input_type_1_item = append_input_type_1_item_data.to_dict()
                append_input.append(append_input_type_1_item)

        else:
            append_input = self.append_input

        messages: list[dict[str, Any]] | None | Unset
        if isinstance(self.messages, Unset):
            messages = UNSET
        elif isinstance(self.messages, list):
            messages = []
            for messages_type_0_item_data in self.messages:
                messages_type_0_item = messages_type_0_item_data.to_dict()
                messages.append(messages_type_0_item)

        else:
            messages = self.messages

        tool_result: dict[str, Any] | None | Unset
        if isinstance(self.tool_result, Unset):
            tool_result = UNSET
        elif isinstance(self.tool_result, ToolResultPatch):
            tool_result = self.tool_result.to_dict()
        else:
            tool_result = self.tool_result

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if append_input is not UNSET:
            field_dict["append_input"] = append_input
        if messages is not UNSET:
            field_dict["messages"] = messages
        if tool_result is not UNSET:
            field_dict["tool_result"] = tool_result

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.input_message import InputMessage  # noqa: PLC0415
        from ..models.patch_message import PatchMessage  # noqa: PLC0415
        from ..models.tool_result_patch import ToolResultPatch  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_append_input(
            data: object,
        ) -> list[InputMessage] | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                append_input_type_1 = []
                _append_input_type_1 = data
                for append_input_type_1_item_data in _append_input_type_1:
                    append_input_type_1_item = InputMessage.from_dict(
                        append_input_type_1_item_data
                    )

                    append_input_type_1.append(append_input_type_1_item)

                return append_input_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[InputMessage] | None | str | Unset, data)

        append_input = _parse_append_input(d.pop("append_input", UNSET))

        def _parse_messages(data: object) -> list[PatchMessage] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                messages_type_0 = []
                _messages_type_0 = data
                for messages_type_0_item_data in _messages_type_0:
                    messages_type_0_item = PatchMessage.from_dict(
                        messages_type_0_item_data
                    )

                    messages_type_0.append(messages_type_0_item)

                return messages_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[PatchMessage] | None | Unset, data)

        messages = _parse_messages(d.pop("messages", UNSET))

        def _parse_tool_result(data: object) -> None | ToolResultPatch | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                tool_result_type_0 = ToolResultPatch.from_dict(data)

                return tool_result_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ToolResultPatch | Unset, data)

        tool_result = _parse_tool_result(d.pop("tool_result", UNSET))

        fork_patch_in = cls(
            append_input=append_input,
            messages=messages,
            tool_result=tool_result,
        )

        return fork_patch_in
