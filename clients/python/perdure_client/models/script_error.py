from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ScriptError")


@_attrs_define
class ScriptError:
    """
    Attributes:
        message (str):
        retryable (bool | Unset):  Default: True.
        times (int | None | Unset):
    """

    message: str
    retryable: bool | Unset = True
    times: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        message = self.message

        retryable = self.retryable

        times: int | None | Unset
        if isinstance(self.times, Unset):
            times = UNSET
        else:
            times = self.times

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "message": message,
            }
        )
        if retryable is not UNSET:
            field_dict["retryable"] = retryable
        if times is not UNSET:
            field_dict["times"] = times

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        message = d.pop("message")

        retryable = d.pop("retryable", UNSET)

        def _parse_times(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        times = _parse_times(d.pop("times", UNSET))

        script_error = cls(
            message=message,
            retryable=retryable,
            times=times,
        )

        return script_error
