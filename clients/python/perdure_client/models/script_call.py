from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.script_call_arguments import ScriptCallArguments


T = TypeVar("T", bound="ScriptCall")


@_attrs_define
class ScriptCall:
    """
    Attributes:
        name (str):
        arguments (ScriptCallArguments | Unset):
    """

    name: str
    arguments: ScriptCallArguments | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        arguments: dict[str, Any] | Unset = UNSET
        if not isinstance(self.arguments, Unset):
            arguments = self.arguments.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
            }
        )
        if arguments is not UNSET:
            field_dict["arguments"] = arguments

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.script_call_arguments import ScriptCallArguments  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name")

        _arguments = d.pop("arguments", UNSET)
        arguments: ScriptCallArguments | Unset
        if isinstance(_arguments, Unset):
            arguments = UNSET
        else:
            arguments = ScriptCallArguments.from_dict(_arguments)

        script_call = cls(
            name=name,
            arguments=arguments,
        )

        return script_call
