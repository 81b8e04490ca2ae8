from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.input_message_role import InputMessageRole
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.input_message_content_type_2 import InputMessageContentType2


T = TypeVar("T", bound="InputMessage")


@_attrs_define
class InputMessage:
    """
    Attributes:
        content (InputMessageContentType2 | list[Any] | str):
        role (InputMessageRole | Unset):  Default: InputMessageRole.USER.
    """

    content: InputMessageContentType2 | list[Any] | str
    role: InputMessageRole | Unset = InputMessageRole.USER

    def to_dict(self) -> dict[str, Any]:
        from ..models.input_message_content_type_2 import InputMessageContentType2  # noqa: PLC0415

        content: dict[str, Any] | list[Any] | str
        if isinstance(self.content, list):
            content = self.content

        elif isinstance(self.content, InputMessageContentType2):
            content = self.content.to_dict()
        else:
            content = self.content

        role: str | Unset = UNSET
        if not isinstance(self.role, Unset):
            role = self.role.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "content": content,
            }
        )
        if role is not UNSET:
            field_dict["role"] = role

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.input_message_content_type_2 import InputMessageContentType2  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_content(data: object) -> InputMessageContentType2 | list[Any] | str:
            try:
                if not isinstance(data, list):
                    raise TypeError()
                content_type_1 = cast(list[Any], data)

                return content_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                content_type_2 = InputMessageContentType2.from_dict(data)

                return content_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(InputMessageContentType2 | list[Any] | str, data)

        content = _parse_content(d.pop("content"))

        _role = d.pop("role", UNSET)
        role: InputMessageRole | Unset
        if isinstance(_role, Unset):
            role = UNSET
        else:
            role = InputMessageRole(_role)

        input_message = cls(
            content=content,
            role=role,
        )

        return input_message
