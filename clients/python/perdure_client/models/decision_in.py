from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.decision_in_arguments_type_0 import DecisionInArgumentsType0


T = TypeVar("T", bound="DecisionIn")


@_attrs_define
class DecisionIn:
    """
    Attributes:
        approved (bool):
        arguments (DecisionInArgumentsType0 | None | Unset): Edit the call before it runs; checked against its schema.
        reason (None | str | Unset):
    """

    approved: bool
    arguments: DecisionInArgumentsType0 | None | Unset = UNSET
    reason: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.decision_in_arguments_type_0 import DecisionInArgumentsType0  # noqa: PLC0415

        approved = self.approved

        arguments: dict[str, Any] | None | Unset
        if isinstance(self.arguments, Unset):
            arguments = UNSET
        elif isinstance(self.arguments, DecisionInArgumentsType0):
            arguments = self.arguments.to_dict()
        else:
            arguments = self.arguments

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "approved": approved,
            }
        )
        if arguments is not UNSET:
            field_dict["arguments"] = arguments
        if reason is not UNSET:
            field_dict["reason"] = reason

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.decision_in_arguments_type_0 import DecisionInArgumentsType0  # noqa: PLC0415

        d = dict(src_dict)
        approved = d.pop("approved")

        def _parse_arguments(data: object) -> DecisionInArgumentsType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                arguments_type_0 = DecisionInArgumentsType0.from_dict(data)

                return arguments_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DecisionInArgumentsType0 | None | Unset, data)

        arguments = _parse_arguments(d.pop("arguments", UNSET))

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        decision_in = cls(
            approved=approved,
            arguments=arguments,
            reason=reason,
        )

        return decision_in
