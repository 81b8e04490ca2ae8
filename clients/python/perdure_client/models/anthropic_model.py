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
    from ..models.anthropic_model_params import AnthropicModelParams
    from ..models.price import Price


T = TypeVar("T", bound="AnthropicModel")


@_attrs_define
class AnthropicModel:
    """Messages API wire format. `base_url` is the bare host; `/v1/messages` is appended.

    Attributes:
        name (str): The provider's model name.
        provider (Literal['anthropic']):
        api_key_env (None | str | Unset):
        base_url (str | Unset):  Default: 'https://api.anthropic.com'.
        params (AnthropicModelParams | Unset): Extra body fields (temperature, max_tokens, ...).
        price (None | Price | Unset): What the model's tokens cost: makes usage.cost_usd, and is required by a budget's
            max_cost_usd.
        stream (bool | Unset): Call the provider in its streaming mode (server-sent events), so the reply's text can be
            passed on as it arrives. The saved turn is the same either way. Default: False.
        timeout_s (float | Unset):  Default: 120.0.
    """

    name: str
    provider: Literal["anthropic"]
    api_key_env: None | str | Unset = UNSET
    base_url: str | Unset = "https://api.anthropic.com"
    params: AnthropicModelParams | Unset = UNSET
    price: None | Price | Unset = UNSET
    stream: bool | Unset = False
    timeout_s: float | Unset = 120.0

    def to_dict(self) -> dict[str, Any]:
        from ..models.price import Price  # noqa: PLC0415

        name = self.name

        provider = self.provider

        api_key_env: None | str | Unset
        if isinstance(self.api_key_env, Unset):
            api_key_env = UNSET
        else:
            api_key_env = self.api_key_env

        base_url = self.base_url

        params: dict[str, Any] | Unset = UNSET
        if not isinstance(self.params, Unset):
            params = self.params.to_dict()

        price: dict[str, Any] | None | Unset
        if isinstance(self.price, Unset):
            price = UNSET
        elif isinstance(self.price, Price):
            price = self.price.to_dict()
        else:
            price = self.price

        stream = self.stream

        timeout_s = self.timeout_s

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "provider": provider,
            }
        )
        if api_key_env is not UNSET:
            field_dict["api_key_env"] = api_key_env
        if base_url is not UNSET:
            field_dict["base_url"] = base_url
        if params is not UNSET:
            field_dict["params"] = params
        if price is not UNSET:
            field_dict["price"] = price
        if stream is not UNSET:
            field_dict["stream"] = stream
        if timeout_s is not UNSET:
            field_dict["timeout_s"] = timeout_s

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.anthropic_model_params import AnthropicModelParams  # noqa: PLC0415
        from ..models.price import Price  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name")

        provider = cast(Literal["anthropic"], d.pop("provider"))
        if provider != "anthropic":
            raise ValueError(f"provider must match const 'anthropic', got '{provider}'")

        def _parse_api_key_env(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        api_key_env = _parse_api_key_env(d.pop("api_key_env", UNSET))

        base_url = d.pop("base_url", UNSET)

        _params = d.pop("params", UNSET)
        params: AnthropicModelParams | Unset
        if isinstance(_params, Unset):
            params = UNSET
        else:
            params = AnthropicModelParams.from_dict(_params)

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

        stream = d.pop("stream", UNSET)

        timeout_s = d.pop("timeout_s", UNSET)

        anthropic_model = cls(
            name=name,
            provider=provider,
            api_key_env=api_key_env,
            base_url=base_url,
            params=params,
            price=price,
            stream=stream,
            timeout_s=timeout_s,
        )

        return anthropic_model
