from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.patch_call_arguments import PatchCallArguments


T = TypeVar("T", bound="PatchCall")


@_attrs_define
class PatchCall:
    """
    Attributes:
        id (str): Unique in the transcript; results name it.
        name (str):
        arguments (PatchCallArguments | Unset):
        provider_call_id (None | str | Unset): The id the model gave the call, as the transcript shows it; the model is
            sent this instead of `id`.
    """

    id: str
    name: str
    arguments: PatchCallArguments | Unset = UNSET
    provider_call_id: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        arguments: dict[str, Any] | Unset = UNSET
        if not isinstance(self.arguments, Unset):
            arguments = self.arguments.to_dict()

        provider_call_id: None | str | Unset
        if isinstance(self.provider_call_id, Unset):
            provider_call_id = UNSET
        else:
            provider_call_id = self.provider_call_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "name": name,
            }
        )
        if arguments is not UNSET:
            field_dict["arguments"] = arguments
        if provider_call_id is not UNSET:
            field_dict["provider_call_id"] = provider_call_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.patch_call_arguments import PatchCallArguments  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        _arguments = d.pop("arguments", UNSET)
        arguments: PatchCallArguments | Unset
        if isinstance(_arguments, Unset):
            arguments = UNSET
        else:
            arguments = PatchCallArguments.from_dict(_arguments)

        def _parse_provider_call_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        provider_call_id = _parse_provider_call_id(d.pop("provider_call_id", UNSET))

        patch_call = cls(
            id=id,
            name=name,
            arguments=arguments,
            provider_call_id=provider_call_id,
        )

        return patch_call
