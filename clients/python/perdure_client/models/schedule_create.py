from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.schedule_create_catch_up import ScheduleCreateCatchUp
from ..models.schedule_create_overlap import ScheduleCreateOverlap
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.input_message import InputMessage
    from ..models.schedule_create_metadata import ScheduleCreateMetadata


T = TypeVar("T", bound="ScheduleCreate")


@_attrs_define
class ScheduleCreate:
    """
    Attributes:
        agent_id (str):
        id (str): 1-180 of A-Za-z0-9_-., not starting or ending with '.'
        input_ (list[InputMessage] | str): What each fire sends, as a send's.
        catch_up (ScheduleCreateCatchUp | Unset): Due times missed while no worker ran, within the catch-up window
            (PERDURE_SCHEDULE_CATCH_UP_S): `all` fire once each, `latest` only the newest. Older ones are recorded as
            skipped (`missed`). Default: ScheduleCreateCatchUp.ALL.
        cron (None | str | Unset): A cron expression read in `timezone`: 5 fields (minute hour day month weekday), or 6
            with seconds last; `@daily` and kin. Exactly one of `cron` and `interval_s`.
        interval_s (int | None | Unset): Every this many seconds from the schedule's creation.
        jitter_s (int | Unset): Fire up to this many seconds after each due time, at random. Default: 0.
        metadata (ScheduleCreateMetadata | Unset):
        overlap (ScheduleCreateOverlap | Unset): When the previous fire's run has not ended: `skip` this fire, `queue` a
            run anyway, or `cancel_previous` and start. Default: ScheduleCreateOverlap.SKIP.
        session (str | Unset): `new`: each fire starts a session of its own, `<schedule id>-<due time, UTC>`; else the
            id of the one session every fire sends to (its runs queue there one behind the other). Default: 'new'.
        timezone (str | Unset): An IANA zone (`Europe/Paris`); cron times are its wall-clock times. Default: 'UTC'.
    """

    agent_id: str
    id: str
    input_: list[InputMessage] | str
    catch_up: ScheduleCreateCatchUp | Unset = ScheduleCreateCatchUp.ALL
    cron: None | str | Unset = UNSET
    interval_s: int | None | Unset = UNSET
    jitter_s: int | Unset = 0
    metadata: ScheduleCreateMetadata | Unset = UNSET
    overlap: ScheduleCreateOverlap | Unset = ScheduleCreateOverlap.SKIP
    session: str | Unset = "new"
    timezone: str | Unset = "UTC"

    def to_dict(self) -> dict[str, Any]:
        agent_id = self.agent_id

        id = self.id

        input_: list[dict[str, Any]] | str
        if isinstance(self.input_, list):
            input_ = []
            for input_type_1_item_data in self.input_:
                input_type_1_item = input_type_1_item_data.to_dict()
                input_.append(input_type_1_item)

        else:
            input_ = self.input_

        catch_up: str | Unset = UNSET
        if not isinstance(self.catch_up, Unset):
            catch_up = self.catch_up.value

        cron: None | str | Unset
        if isinstance(self.cron, Unset):
            cron = UNSET
        else:
            cron = self.cron

        interval_s: int | None | Unset
        if isinstance(self.interval_s, Unset):
            interval_s = UNSET
        else:
            interval_s = self.interval_s

        jitter_s = self.jitter_s

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        overlap: str | Unset = UNSET
        if not isinstance(self.overlap, Unset):
            overlap = self.overlap.value

        session = self.session

        timezone = self.timezone

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "agent_id": agent_id,
                "id": id,
                "input": input_,
            }
        )
        if catch_up is not UNSET:
            field_dict["catch_up"] = catch_up
        if cron is not UNSET:
            field_dict["cron"] = cron
        if interval_s is not UNSET:
            field_dict["interval_s"] = interval_s
        if jitter_s is not UNSET:
            field_dict["jitter_s"] = jitter_s
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if overlap is not UNSET:
            field_dict["overlap"] = overlap
        if session is not UNSET:
            field_dict["session"] = session
        if timezone is not UNSET:
            field_dict["timezone"] = timezone

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.input_message import InputMessage  # noqa: PLC0415
        from ..models.schedule_create_metadata import ScheduleCreateMetadata  # noqa: PLC0415

        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        id = d.pop("id")

        def _parse_input_(data: object) -> list[InputMessage] | str:
            try:
                if not isinstance(data, list):
                    raise TypeError()
                input_type_1 = []
                _input_type_1 = data
                for input_type_1_item_data in _input_type_1:
                    input_type_1_item = InputMessage.from_dict(input_type_1_item_data)

                    input_type_1.append(input_type_1_item)

                return input_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[InputMessage] | str, data)

        input_ = _parse_input_(d.pop("input"))

        _catch_up = d.pop("catch_up", UNSET)
        catch_up: ScheduleCreateCatchUp | Unset
        if isinstance(_catch_up, Unset):
            catch_up = UNSET
        else:
            catch_up = ScheduleCreateCatchUp(_catch_up)

        def _parse_cron(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        cron = _parse_cron(d.pop("cron", UNSET))

        def _parse_interval_s(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        interval_s = _parse_interval_s(d.pop("interval_s", UNSET))

        jitter_s = d.pop("jitter_s", UNSET)

        _metadata = d.pop("metadata", UNSET)
        metadata: ScheduleCreateMetadata | Unset
        if isinstance(_metadata, Unset):
            metadata = UNSET
        else:
            metadata = ScheduleCreateMetadata.from_dict(_metadata)

        _overlap = d.pop("overlap", UNSET)
        overlap: ScheduleCreateOverlap | Unset
        if isinstance(_overlap, Unset):
            overlap = UNSET
        else:
            overlap = ScheduleCreateOverlap(_overlap)

        session = d.pop("session", UNSET)

        timezone = d.pop("timezone", UNSET)

        schedule_create = cls(
            agent_id=agent_id,
            id=id,
            input_=input_,
            catch_up=catch_up,
            cron=cron,
            interval_s=interval_s,
            jitter_s=jitter_s,
            metadata=metadata,
            overlap=overlap,
            session=session,
            timezone=timezone,
        )

        return schedule_create
