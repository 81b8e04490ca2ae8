from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.compare_out_drift import CompareOutDrift
    from ..models.trajectory import Trajectory


T = TypeVar("T", bound="CompareOut")


@_attrs_define
class CompareOut:
    """
    Attributes:
        a (Trajectory):
        b (Trajectory):
        diverged_at (int | None): First step that differs, call ids aside.
        drift (CompareOutDrift):
    """

    a: Trajectory
    b: Trajectory
    diverged_at: int | None
    drift: CompareOutDrift
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        a = self.a.to_dict()

        b = self.b.to_dict()

        diverged_at: int | None
        diverged_at = self.diverged_at

        drift = self.drift.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "a": a,
                "b": b,
                "diverged_at": diverged_at,
                "drift": drift,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.compare_out_drift import CompareOutDrift  # noqa: PLC0415
        from ..models.trajectory import Trajectory  # noqa: PLC0415

        d = dict(src_dict)
        a = Trajectory.from_dict(d.pop("a"))

        b = Trajectory.from_dict(d.pop("b"))

        def _parse_diverged_at(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        diverged_at = _parse_diverged_at(d.pop("diverged_at"))

        drift = CompareOutDrift.from_dict(d.pop("drift"))

        compare_out = cls(
            a=a,
            b=b,
            diverged_at=diverged_at,
            drift=drift,
        )

        compare_out.additional_properties = d
        return compare_out

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
