from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="Price")


@_attrs_define
class Price:
    """What the model's tokens cost, in US dollars per million tokens.

    Attributes:
        input_per_mtok (float):
        output_per_mtok (float):
    """

    input_per_mtok: float
    output_per_mtok: float

    def to_dict(self) -> dict[str, Any]:
        input_per_mtok = self.input_per_mtok

        output_per_mtok = self.output_per_mtok

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "input_per_mtok": input_per_mtok,
                "output_per_mtok": output_per_mtok,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        input_per_mtok = d.pop("input_per_mtok")

        output_per_mtok = d.pop("output_per_mtok")

        price = cls(
            input_per_mtok=input_per_mtok,
            output_per_mtok=output_per_mtok,
        )

        return price
