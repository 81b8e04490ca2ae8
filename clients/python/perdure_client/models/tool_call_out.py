from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ToolCallOut")


@_attrs_define
class ToolCallOut:
    """
    Attributes:
        arguments (Any):
        id (str): Perdure's id for the call, unique in the session: the model's own id when that was free, else a minted
            one. Results, approvals and client tool outputs name the call by it.
        name (str):
        provider_call_id (None | str | Unset): The id the model gave the call, sent back to it as is; null if it gave
            none (or the call predates this field).
    """

    arguments: Any
    id: str
    name: str
    provider_call_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        arguments = self.arguments

        id = self.id

        name = self.name

        provider_call_id: None | str | Unset
        if isinstance(self.provider_call_id, Unset):
            provider_call_id = UNSET
        else:
            provider_call_id = self.provider_call_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "arguments": arguments,
                "id": id,
                "name": name,
            }
        )
        if provider_call_id is not UNSET:
            field_dict["provider_call_id"] = provider_call_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        arguments = d.pop("arguments")

        id = d.pop("id")

        name = d.pop("name")

        def _parse_provider_call_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        provider_call_id = _parse_provider_call_id(d.pop("provider_call_id", UNSET))

        tool_call_out = cls(
            arguments=arguments,
            id=id,
            name=name,
            provider_call_id=provider_call_id,
        )

        tool_call_out.additional_properties = d
        return tool_call_out

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
