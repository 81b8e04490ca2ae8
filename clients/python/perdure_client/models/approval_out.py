from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.approval_out_status import ApprovalOutStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.actor import Actor
    from ..models.approval_out_decision_type_0 import ApprovalOutDecisionType0
    from ..models.parent_link import ParentLink


T = TypeVar("T", bound="ApprovalOut")


@_attrs_define
class ApprovalOut:
    """
    Attributes:
        arguments (Any):
        created_at (datetime.datetime):
        decided_at (datetime.datetime | None):
        decision (ApprovalOutDecisionType0 | None):
        expires_at (datetime.datetime | None):
        id (str):
        run_id (str):
        session_id (str):
        status (ApprovalOutStatus):
        tool (str):
        tool_call_id (str):
        decided_by (Actor | None | Unset): Who decided (none for an expiry or a withdrawal).
        parent_chain (list[ParentLink] | Unset): When the run is a sub-agent's: its parents, nearest first, up to the
            top-level run.
    """

    arguments: Any
    created_at: datetime.datetime
    decided_at: datetime.datetime | None
    decision: ApprovalOutDecisionType0 | None
    expires_at: datetime.datetime | None
    id: str
    run_id: str
    session_id: str
    status: ApprovalOutStatus
    tool: str
    tool_call_id: str
    decided_by: Actor | None | Unset = UNSET
    parent_chain: list[ParentLink] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.actor import Actor  # noqa: PLC0415
        from ..models.approval_out_decision_type_0 import ApprovalOutDecisionType0  # noqa: PLC0415

        arguments = self.arguments

        created_at = self.created_at.isoformat()

        decided_at: None | str
        if isinstance(self.decided_at, datetime.datetime):
            decided_at = self.decided_at.isoformat()
        else:
            decided_at = self.decided_at

        decision: dict[str, Any] | None
        if isinstance(self.decision, ApprovalOutDecisionType0):
            decision = self.decision.to_dict()
        else:
            decision = self.decision

        expires_at: None | str
        if isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        id = self.id

        run_id = self.run_id

        session_id = self.session_id

        status = self.status.value

        tool = self.tool

        tool_call_id = self.tool_call_id

        decided_by: dict[str, Any] | None | Unset
        if isinstance(self.decided_by, Unset):
            decided_by = UNSET
        elif isinstance(self.decided_by, Actor):
            decided_by = self.decided_by.to_dict()
        else:
            decided_by = self.decided_by

        parent_chain: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.parent_chain, Unset):
            parent_chain = []
            for parent_chain_item_data in self.parent_chain:
                parent_chain_item = parent_chain_item_data.to_dict()
                parent_chain.append(parent_chain_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "arguments": arguments,
                "created_at": created_at,
                "decided_at": decided_at,
                "decision": decision,
                "expires_at": expires_at,
                "id": id,
                "run_id": run_id,
                "session_id": session_id,
                "status": status,
                "tool": tool,
                "tool_call_id": tool_call_id,
            }
        )
        if decided_by is not UNSET:
            field_dict["decided_by"] = decided_by
        if parent_chain is not UNSET:
            field_dict["parent_chain"] = parent_chain

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.actor import Actor  # noqa: PLC0415
        from ..models.approval_out_decision_type_0 import ApprovalOutDecisionType0  # noqa: PLC0415
        from ..models.parent_link import ParentLink  # noqa: PLC0415

        d = dict(src_dict)
        arguments = d.pop("arguments")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_decided_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                decided_at_type_0 = datetime.datetime.fromisoformat(data)

                return decided_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        decided_at = _parse_decided_at(d.pop("decided_at"))

        def _parse_decision(data: object) -> ApprovalOutDecisionType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                decision_type_0 = ApprovalOutDecisionType0.from_dict(data)

                return decision_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ApprovalOutDecisionType0 | None, data)

        decision = _parse_decision(d.pop("decision"))

        def _parse_expires_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)

                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        expires_at = _parse_expires_at(d.pop("expires_at"))

        id = d.pop("id")

        run_id = d.pop("run_id")

        session_id = d.pop("session_id")

        status = ApprovalOutStatus(d.pop("status"))

        tool = d.pop("tool")

        tool_call_id = d.pop("tool_call_id")

        def _parse_decided_by(data: object) -> Actor | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                decided_by_type_0 = Actor.from_dict(data)

                return decided_by_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Actor | None | Unset, data)

        decided_by = _parse_decided_by(d.pop("decided_by", UNSET))

        _parent_chain = d.pop("parent_chain", UNSET)
        parent_chain: list[ParentLink] | Unset = UNSET
        if _parent_chain is not UNSET:
            parent_chain = []
            for parent_chain_item_data in _parent_chain:
                parent_chain_item = ParentLink.from_dict(parent_chain_item_data)

                parent_chain.append(parent_chain_item)

        approval_out = cls(
            arguments=arguments,
            created_at=created_at,
            decided_at=decided_at,
            decision=decision,
            expires_at=expires_at,
            id=id,
            run_id=run_id,
            session_id=session_id,
            status=status,
            tool=tool,
            tool_call_id=tool_call_id,
            decided_by=decided_by,
            parent_chain=parent_chain,
        )

        approval_out.additional_properties = d
        return approval_out

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
