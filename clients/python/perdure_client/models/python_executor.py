from __future__ import annotations

from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PythonExecutor")


@_attrs_define
class PythonExecutor:
    """`package.module:function`, sync or async, called as f(arguments, context).

    The module must be one the operator lists in `PERDURE_PYTHON_TOOLS`. A call that runs
    longer than `timeout_s` gets a `timeout` error result; a sync function's thread
    cannot be stopped, so it is abandoned (it may still finish its side effect).

        Attributes:
            path (str):
            type_ (Literal['python']):
            timeout_s (float | Unset):  Default: 30.0.
    """

    path: str
    type_: Literal["python"]
    timeout_s: float | Unset = 30.0

    def to_dict(self) -> dict[str, Any]:
        path = self.path

        type_ = self.type_

        timeout_s = self.timeout_s

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "path": path,
                "type": type_,
            }
        )
        if timeout_s is not UNSET:
            field_dict["timeout_s"] = timeout_s

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        path = d.pop("path")

        type_ = cast(Literal["python"], d.pop("type"))
        if type_ != "python":
            raise ValueError(f"type must match const 'python', got '{type_}'")

        timeout_s = d.pop("timeout_s", UNSET)

        python_executor = cls(
            path=path,
            type_=type_,
            timeout_s=timeout_s,
        )

        return python_executor
