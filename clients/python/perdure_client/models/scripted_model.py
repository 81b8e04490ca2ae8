from __future__ import annotations

from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.price import Price
    from ..models.script_reply import ScriptReply


T = TypeVar("T", bound="ScriptedModel")


@_attrs_define
class ScriptedModel:
    """Replies by position: the k-th model call of a session gets `script[k]`.

    Past the end it repeats the last reply that has no tool calls. Deterministic, so a
    test can tell whether a turn was generated twice.

        Attributes:
            provider (Literal['scripted']):
            script (list[ScriptReply]):
            name (str | Unset):  Default: 'scripted'.
            price (None | Price | Unset): What the model's tokens cost: makes usage.cost_usd, and is required by a budget's
                max_cost_usd.
    """

    provider: Literal["scripted"]
    script: list[ScriptReply]
    name: str | Unset = "scripted"
    price: None | Price | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.price import Price  # noqa: PLC0415

        provider = self.provider

        script = []
        for script_item_data in self.script:
            script_item = script_item_data.to_dict()
            script.append(script_item)

        name = self.name

        price: dict[str, Any] | None | Unset
        if isinstance(self.price, Unset):
            price = UNSET
        elif isinstance(self.price, Price):
            price = self.price.to_dict()
        else:
            price = self.price

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "provider": provider,
                "script": script,
            }
        )
        if name is not UNSET:
            field_dict["name"] = name
        if price is not UNSET:
            field_dict["price"] = price

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.price import Price  # noqa: PLC0415
        from ..models.script_reply import ScriptReply  # noqa: PLC0415

        d = dict(src_dict)
        provider = cast(Literal["scripted"], d.pop("provider"))
        if provider != "scripted":
            raise ValueError(f"provider must match const 'scripted', got '{provider}'")

        script = []
        _script = d.pop("script")
        for script_item_data in _script:
            script_item = ScriptReply.from_dict(script_item_data)

            script.append(script_item)

        name = d.pop("name", UNSET)

        def _parse_price(data: object) -> None | Price | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                price_type_0 = Price.from_dict(data)

                return price_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Price | Unset, data)

        price = _parse_price(d.pop("price", UNSET))

        scripted_model = cls(
            provider=provider,
            script=script,
            name=name,
            price=price,
        )

        return scripted_model
