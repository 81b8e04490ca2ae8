from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.catch_up import CatchUp
from ..models.overlap import Overlap
from ..models.schedule_out_status import ScheduleOutStatus

if TYPE_CHECKING:
    from ..models.schedule_out_input_item import ScheduleOutInputItem
    from ..models.schedule_out_metadata import ScheduleOutMetadata


T = TypeVar("T", bound="ScheduleOut")


@_attrs_define
class ScheduleOut:
    """
    Attributes:
        agent_id (str):
        catch_up (CatchUp):
        created_at (datetime.datetime):
        cron (None | str):
        id (str):
        input_ (list[ScheduleOutInputItem]):
        interval_s (int | None):
        jitter_s (int):
        last_run_id (None | str): The run the latest started fire started.
        metadata (ScheduleOutMetadata):
        next_due_at (datetime.datetime | None): None while paused.
        overlap (Overlap):
        session (str):
        status (ScheduleOutStatus):
        timezone (str):
        updated_at (datetime.datetime):
    """

    agent_id: str
    catch_up: CatchUp
    created_at: datetime.datetime
    cron: None | str
    id: str
    input_: list[ScheduleOutInputItem]
    interval_s: int | None
    jitter_s: int
    last_run_id: None | str
    metadata: ScheduleOutMetadata
    next_due_at: datetime.datetime | None
    overlap: Overlap
    session: str
    status: ScheduleOutStatus
    timezone: str
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent_id = self.agent_id

        catch_up = self.catch_up.value

        created_at = self.created_at.isoformat()

        cron: None | str
        cron = self.cron

        id = self.id

        input_ = []
        for input_item_data in self.input_:
            input_item = input_item_data.to_dict()
            input_.append(input_item)

        interval_s: int | None
        interval_s = self.interval_s

        jitter_s = self.jitter_s

        last_run_id: None | str
        last_run_id = self.last_run_id

        metadata = self.metadata.to_dict()

        next_due_at: None | str
        if isinstance(self.next_due_at, datetime.datetime):
            next_due_at = self.next_due_at.isoformat()
        else:
            next_due_at = self.next_due_at

        overlap = self.overlap.value

        session = self.session

        status = self.status.value

        timezone = self.timezone

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_id": agent_id,
                "catch_up": catch_up,
                "created_at": created_at,
                "cron": cron,
                "id": id,
                "input": input_,
                "interval_s": interval_s,
                "jitter_s": jitter_s,
                "last_run_id": last_run_id,
                "metadata": metadata,
                "next_due_at": next_due_at,
                "overlap": overlap,
                "session": session,
                "status": status,
                "timezone": timezone,
                "updated_at": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.schedule_out_input_item import ScheduleOutInputItem  # noqa: PLC0415
        from ..models.schedule_out_metadata import ScheduleOutMetadata  # noqa: PLC0415

        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        catch_up = CatchUp(d.pop("catch_up"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_cron(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        cron = _parse_cron(d.pop("cron"))

        id = d.pop("id")

        input_ = []
        _input_ = d.pop("input")
        for input_item_data in _input_:
            input_item = ScheduleOutInputItem.from_dict(input_item_data)

            input_.append(input_item)

        def _parse_interval_s(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        interval_s = _parse_interval_s(d.pop("interval_s"))

        jitter_s = d.pop("jitter_s")

        def _parse_last_run_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_run_id = _parse_last_run_id(d.pop("last_run_id"))

        metadata = ScheduleOutMetadata.from_dict(d.pop("metadata"))

        def _parse_next_due_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_due_at_type_0 = datetime.datetime.fromisoformat(data)

                return next_due_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        next_due_at = _parse_next_due_at(d.pop("next_due_at"))

        overlap = Overlap(d.pop("overlap"))

        session = d.pop("session")

        status = ScheduleOutStatus(d.pop("status"))

        timezone = d.pop("timezone")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        schedule_out = cls(
            agent_id=agent_id,
            catch_up=catch_up,
            created_at=created_at,
            cron=cron,
            id=id,
            input_=input_,
            interval_s=interval_s,
            jitter_s=jitter_s,
            last_run_id=last_run_id,
            metadata=metadata,
            next_due_at=next_due_at,
            overlap=overlap,
            session=session,
            status=status,
            timezone=timezone,
            updated_at=updated_at,
        )

        schedule_out.additional_properties = d
        return schedule_out

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
