from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.session_summary_out_metadata import SessionSummaryOutMetadata


T = TypeVar("T", bound="SessionSummaryOut")


@_attrs_define
class SessionSummaryOut:
    """A session in a list; `GET /v1/sessions/{id}` adds its usage and budget.

    Attributes:
        agent_id (str):
        agent_version (int):
        created_at (datetime.datetime):
        id (str):
        last_run_id (None | str):
        metadata (SessionSummaryOutMetadata):
        run_count (int):
        status (str): The status of the latest run, or `idle`.
        updated_at (datetime.datetime):
    """

    agent_id: str
    agent_version: int
    created_at: datetime.datetime
    id: str
    last_run_id: None | str
    metadata: SessionSummaryOutMetadata
    run_count: int
    status: str
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        agent_id = self.agent_id

        agent_version = self.agent_version

        created_at = self.created_at.isoformat()

        id = self.id

        last_run_id: None | str
        last_run_id = self.last_run_id

        metadata = self.metadata.to_dict()

        run_count = self.run_count

        status = self.status

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "agent_id": agent_id,
                "agent_version": agent_version,
                "created_at": created_at,
                "id": id,
                "last_run_id": last_run_id,
                "metadata": metadata,
                "run_count": run_count,
                "status": status,
                "updated_at": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.session_summary_out_metadata import SessionSummaryOutMetadata  # noqa: PLC0415

        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        agent_version = d.pop("agent_version")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = d.pop("id")

        def _parse_last_run_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_run_id = _parse_last_run_id(d.pop("last_run_id"))

        metadata = SessionSummaryOutMetadata.from_dict(d.pop("metadata"))

        run_count = d.pop("run_count")

        status = d.pop("status")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        session_summary_out = cls(
            agent_id=agent_id,
            agent_version=agent_version,
            created_at=created_at,
            id=id,
            last_run_id=last_run_id,
            metadata=metadata,
            run_count=run_count,
            status=status,
            updated_at=updated_at,
        )

        session_summary_out.additional_properties = d
        return session_summary_out

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
