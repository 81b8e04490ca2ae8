from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.patch_message_role import PatchMessageRole
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.patch_call import PatchCall


T = TypeVar("T", bound="PatchMessage")


@_attrs_define
class PatchMessage:
    """
    Attributes:
        role (PatchMessageRole):
        content (Any | Unset):  Default: ''.
        is_error (bool | Unset):  Default: False.
        tool_call_id (None | str | Unset):
        tool_calls (list[PatchCall] | None | Unset):
    """

    role: PatchMessageRole
    content: Any | Unset = ""
    is_error: bool | Unset = False
    tool_call_id: None | str | Unset = UNSET
    tool_calls: list[PatchCall] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        role = self.role.value

        content = self.content

        is_error = self.is_error

        tool_call_id: None | str | Unset
        if isinstance(self.tool_call_id, Unset):
            tool_call_id = UNSET
        else:
            tool_call_id = self.tool_call_id

        tool_calls: list[dict[str, Any]] | None | Unset
        if isinstance(self.tool_calls, Unset):
            tool_calls = UNSET
        elif isinstance(self.tool_calls, list):
            tool_calls = []
            for tool_calls_type_0_item_data in self.tool_calls:
                tool_calls_type_0_item = tool_calls_type_0_item_data.to_dict()
                tool_calls.append(tool_calls_type_0_item)

        else:
            tool_calls = self.tool_calls

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "role": role,
            }
        )
        if content is not UNSET:
            field_dict["content"] = content
        if is_error is not UNSET:
            field_dict["is_error"] = is_error
        if tool_call_id is not UNSET:
            field_dict["tool_call_id"] = tool_call_id
        if tool_calls is not UNSET:
            field_dict["tool_calls"] = tool_calls

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.patch_call import PatchCall  # noqa: PLC0415

        d = dict(src_dict)
        role = PatchMessageRole(d.pop("role"))

        content = d.pop("content", UNSET)

        is_error = d.pop("is_error", UNSET)

        def _parse_tool_call_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tool_call_id = _parse_tool_call_id(d.pop("tool_call_id", UNSET))

        def _parse_tool_calls(data: object) -> list[PatchCall] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                tool_calls_type_0 = []
                _tool_calls_type_0 = data
                for tool_calls_type_0_item_data in _tool_calls_type_0:
                    tool_calls_type_0_item = PatchCall.from_dict(
                        tool_calls_type_0_item_data
                    )

                    tool_calls_type_0.append(tool_calls_type_0_item)

                return tool_calls_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[PatchCall] | None | Unset, data)

        tool_calls = _parse_tool_calls(d.pop("tool_calls", UNSET))

        patch_message = cls(
            role=role,
            content=content,
            is_error=is_error,
            tool_call_id=tool_call_id,
            tool_calls=tool_calls,
        )

        return patch_message
