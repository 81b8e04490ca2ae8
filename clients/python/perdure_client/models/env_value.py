from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="EnvValue")


@_attrs_define
class EnvValue:
    """
    Attributes:
        env (str):
    """

    env: str

    def to_dict(self) -> dict[str, Any]:
        env = self.env

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "env": env,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        env = d.pop("env")

        env_value = cls(
            env=env,
        )

        return env_value
