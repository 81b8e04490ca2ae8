from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.outcome import Outcome
from ..models.skip_reason import SkipReason

if TYPE_CHECKING:
    from ..models.fire_error import FireError
    from ..models.fire_out_detail_type_0 import FireOutDetailType0


T = TypeVar("T", bound="FireOut")


@_attrs_define
class FireOut:
    """
    Attributes:
        detail (FireOutDetailType0 | None):
        due_at (datetime.datetime):
        error (FireError | None):
        fired_at (datetime.datetime):
        outcome (Outcome):
        previous_run_id (None | str): The previous fire's run, when it had not ended: still going (skipped), or
            cancelled (cancel_previous).
        reason (None | SkipReason): Why it was skipped: the previous run had not ended (`overlap`), it was older than
            the catch-up window (`missed`), a later due time fired instead (`superseded`).
        run_id (None | str):
        session_id (None | str):
    """

    detail: FireOutDetailType0 | None
    due_at: datetime.datetime
    error: FireError | None
    fired_at: datetime.datetime
    outcome: Outcome
    previous_run_id: None | str
    reason: None | SkipReason
    run_id: None | str
    session_id: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.fire_error import FireError  # noqa: PLC0415
        from ..models.fire_out_detail_type_0 import FireOutDetailType0  # noqa: PLC0415

        detail: dict[str, Any] | None
        if isinstance(self.detail, FireOutDetailType0):
            detail = self.detail.to_dict()
        else:
            detail = self.detail

        due_at = self.due_at.isoformat()

        error: dict[str, Any] | None
        if isinstance(self.error, FireError):
            error = self.error.to_dict()
        else:
            error = self.error

        fired_at = self.fired_at.isoformat()

        outcome = self.outcome.value

        previous_run_id: None | str
        previous_run_id = self.previous_run_id

        reason: None | str
        if isinstance(self.reason, SkipReason):
            reason = self.reason.value
        else:
            reason = self.reason

        run_id: None | str
        run_id = self.run_id

        session_id: None | str
        session_id = self.session_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "detail": detail,
                "due_at": due_at,
                "error": error,
                "fired_at": fired_at,
                "outcome": outcome,
                "previous_run_id": previous_run_id,
                "reason": reason,
                "run_id": run_id,
                "session_id": session_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.fire_error import FireError  # noqa: PLC0415
        from ..models.fire_out_detail_type_0 import FireOutDetailType0  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_detail(data: object) -> FireOutDetailType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                detail_type_0 = FireOutDetailType0.from_dict(data)

                return detail_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FireOutDetailType0 | None, data)

        detail = _parse_detail(d.pop("detail"))

        due_at = datetime.datetime.fromisoformat(d.pop("due_at"))

        def _parse_error(data: object) -> FireError | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_0 = FireError.from_dict(data)

                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FireError | None, data)

        error = _parse_error(d.pop("error"))

        fired_at = datetime.datetime.fromisoformat(d.pop("fired_at"))

        outcome = Outcome(d.pop("outcome"))

        def _parse_previous_run_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        previous_run_id = _parse_previous_run_id(d.pop("previous_run_id"))

        def _parse_reason(data: object) -> None | SkipReason:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reason_type_0 = SkipReason(data)

                return reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SkipReason, data)

        reason = _parse_reason(d.pop("reason"))

        def _parse_run_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        run_id = _parse_run_id(d.pop("run_id"))

        def _parse_session_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        session_id = _parse_session_id(d.pop("session_id"))

        fire_out = cls(
            detail=detail,
            due_at=due_at,
            error=error,
            fired_at=fired_at,
            outcome=outcome,
            previous_run_id=previous_run_id,
            reason=reason,
            run_id=run_id,
            session_id=session_id,
        )

        fire_out.additional_properties = d
        return fire_out

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
