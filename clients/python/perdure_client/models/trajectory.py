from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.trajectory_step import TrajectoryStep


T = TypeVar("T", bound="Trajectory")


@_attrs_define
class Trajectory:
    """
    Attributes:
        finish_reason (None | str):
        session_id (str):
        steps (list[TrajectoryStep]):
    """

    finish_reason: None | str
    session_id: str
    steps: list[TrajectoryStep]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        finish_reason: None | str
        finish_reason = self.finish_reason

        session_id = self.session_id

        steps = []
        for steps_item_data in self.steps:
            steps_item = steps_item_data.to_dict()
            steps.append(steps_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "finish_reason": finish_reason,
                "session_id": session_id,
                "steps": steps,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.trajectory_step import TrajectoryStep  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_finish_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        finish_reason = _parse_finish_reason(d.pop("finish_reason"))

        session_id = d.pop("session_id")

        steps = []
        _steps = d.pop("steps")
        for steps_item_data in _steps:
            steps_item = TrajectoryStep.from_dict(steps_item_data)

            steps.append(steps_item)

        trajectory = cls(
            finish_reason=finish_reason,
            session_id=session_id,
            steps=steps,
        )

        trajectory.additional_properties = d
        return trajectory

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
