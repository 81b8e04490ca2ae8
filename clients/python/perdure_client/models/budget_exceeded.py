from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.budget_exceeded_scope import BudgetExceededScope

T = TypeVar("T", bound="BudgetExceeded")


@_attrs_define
class BudgetExceeded:
    """The limit that ended a run (`finish_reason` "budget_exceeded").

    Attributes:
        limit (str): The limit's name, e.g. `max_tool_calls`.
        max_ (float):
        scope (BudgetExceededScope): `run`: the run's own budget; `session`: all runs of its session.
        used (float): What the run (or session) had spent when checked.
    """

    limit: str
    max_: float
    scope: BudgetExceededScope
    used: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        limit = self.limit

        max_ = self.max_

        scope = self.scope.value

        used = self.used

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "limit": limit,
                "max": max_,
                "scope": scope,
                "used": used,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        limit = d.pop("limit")

        max_ = d.pop("max")

        scope = BudgetExceededScope(d.pop("scope"))

        used = d.pop("used")

        budget_exceeded = cls(
            limit=limit,
            max_=max_,
            scope=scope,
            used=used,
        )

        budget_exceeded.additional_properties = d
        return budget_exceeded

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
