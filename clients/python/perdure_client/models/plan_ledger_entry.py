from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.plan_ledger_entry_usage_type_0 import PlanLedgerEntryUsageType0


T = TypeVar("T", bound="PlanLedgerEntry")


@_attrs_define
class PlanLedgerEntry:
    """One node a planner started, and how it went.

    Attributes:
        capability (str):
        child_run_id (None | str):
        child_session_id (None | str):
        node (str):
        plan_index (int): The plan it ran under (0: the first).
        status (str): `running`, `ok`, `error`, `cancelled`, ...
        tool_call_id (str):
        error (None | str | Unset):
        output (Any | Unset):
        usage (None | PlanLedgerEntryUsageType0 | Unset):
    """

    capability: str
    child_run_id: None | str
    child_session_id: None | str
    node: str
    plan_index: int
    status: str
    tool_call_id: str
    error: None | str | Unset = UNSET
    output: Any | Unset = UNSET
    usage: None | PlanLedgerEntryUsageType0 | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.plan_ledger_entry_usage_type_0 import PlanLedgerEntryUsageType0  # noqa: PLC0415

        capability = self.capability

        child_run_id: None | str
        child_run_id = self.child_run_id

        child_session_id: None | str
        child_session_id = self.child_session_id

        node = self.node

        plan_index = self.plan_index

        status = self.status

        tool_call_id = self.tool_call_id

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        output = self.output

        usage: dict[str, Any] | None | Unset
        if isinstance(self.usage, Unset):
            usage = UNSET
        elif isinstance(self.usage, PlanLedgerEntryUsageType0):
            usage = self.usage.to_dict()
        else:
            usage = self.usage

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "capability": capability,
                "child_run_id": child_run_id,
                "child_session_id": child_session_id,
                "node": node,
                "plan_index": plan_index,
                "status": status,
                "tool_call_id": tool_call_id,
            }
        )
        if error is not UNSET:
            field_dict["error"] = error
        if output is not UNSET:
            field_dict["output"] = output
        if usage is not UNSET:
            field_dict["usage"] = usage

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.plan_ledger_entry_usage_type_0 import PlanLedgerEntryUsageType0  # noqa: PLC0415

        d = dict(src_dict)
        capability = d.pop("capability")

        def _parse_child_run_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        child_run_id = _parse_child_run_id(d.pop("child_run_id"))

        def _parse_child_session_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        child_session_id = _parse_child_session_id(d.pop("child_session_id"))

        node = d.pop("node")

        plan_index = d.pop("plan_index")

        status = d.pop("status")

        tool_call_id = d.pop("tool_call_id")

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        output = d.pop("output", UNSET)

        def _parse_usage(data: object) -> None | PlanLedgerEntryUsageType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                usage_type_0 = PlanLedgerEntryUsageType0.from_dict(data)

                return usage_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PlanLedgerEntryUsageType0 | Unset, data)

        usage = _parse_usage(d.pop("usage", UNSET))

        plan_ledger_entry = cls(
            capability=capability,
            child_run_id=child_run_id,
            child_session_id=child_session_id,
            node=node,
            plan_index=plan_index,
            status=status,
            tool_call_id=tool_call_id,
            error=error,
            output=output,
            usage=usage,
        )

        plan_ledger_entry.additional_properties = d
        return plan_ledger_entry

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
