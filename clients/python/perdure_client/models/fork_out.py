from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.run_out import RunOut


T = TypeVar("T", bound="ForkOut")


@_attrs_define
class ForkOut:
    """
    Attributes:
        checkpoint_seq (int):
        from_checkpoint_seq (int):
        from_step (int):
        run (RunOut):
        session_id (str):
    """

    checkpoint_seq: int
    from_checkpoint_seq: int
    from_step: int
    run: RunOut
    session_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        checkpoint_seq = self.checkpoint_seq

        from_checkpoint_seq = self.from_checkpoint_seq

        from_step = self.from_step

        run = self.run.to_dict()

        session_id = self.session_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "checkpoint_seq": checkpoint_seq,
                "from_checkpoint_seq": from_checkpoint_seq,
                "from_step": from_step,
                "run": run,
                "session_id": session_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.run_out import RunOut  # noqa: PLC0415

        d = dict(src_dict)
        checkpoint_seq = d.pop("checkpoint_seq")

        from_checkpoint_seq = d.pop("from_checkpoint_seq")

        from_step = d.pop("from_step")

        run = RunOut.from_dict(d.pop("run"))

        session_id = d.pop("session_id")

        fork_out = cls(
            checkpoint_seq=checkpoint_seq,
            from_checkpoint_seq=from_checkpoint_seq,
            from_step=from_step,
            run=run,
            session_id=session_id,
        )

        fork_out.additional_properties = d
        return fork_out

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
