from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ApprovalRules")


@_attrs_define
class ApprovalRules:
    """Who may decide this tool's approvals.

    Attributes:
        distinct_approver (bool | Unset): The key that started the run may not decide (403 SELF_APPROVAL): four eyes. In
            open mode nobody is told apart, so nobody may. Default: False.
    """

    distinct_approver: bool | Unset = False

    def to_dict(self) -> dict[str, Any]:
        distinct_approver = self.distinct_approver

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if distinct_approver is not UNSET:
            field_dict["distinct_approver"] = distinct_approver

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        distinct_approver = d.pop("distinct_approver", UNSET)

        approval_rules = cls(
            distinct_approver=distinct_approver,
        )

        return approval_rules
