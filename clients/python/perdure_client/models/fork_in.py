from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.fork_patch_in import ForkPatchIn


T = TypeVar("T", bound="ForkIn")


@_attrs_define
class ForkIn:
    """
    Attributes:
        from_step (int): Fork from the newest save of this step.
        patch (ForkPatchIn | None | Unset):
        session_id (None | str | Unset): Default `<id>.fork-<n>`; 1-200 of A-Za-z0-9_-., not starting or ending with
            '.'.
    """

    from_step: int
    patch: ForkPatchIn | None | Unset = UNSET
    session_id: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.fork_patch_in import ForkPatchIn  # noqa: PLC0415

        from_step = self.from_step

        patch: dict[str, Any] | None | Unset
        if isinstance(self.patch, Unset):
            patch = UNSET
        elif isinstance(self.patch, ForkPatchIn):
            patch = self.patch.to_dict()
        else:
            patch = self.patch

        session_id: None | str | Unset
        if isinstance(self.session_id, Unset):
            session_id = UNSET
        else:
            session_id = self.session_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "from_step": from_step,
            }
        )
        if patch is not UNSET:
            field_dict["patch"] = patch
        if session_id is not UNSET:
            field_dict["session_id"] = session_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.fork_patch_in import ForkPatchIn  # noqa: PLC0415

        d = dict(src_dict)
        from_step = d.pop("from_step")

        def _parse_patch(data: object) -> ForkPatchIn | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                patch_type_0 = ForkPatchIn.from_dict(data)

                return patch_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ForkPatchIn | None | Unset, data)

        patch = _parse_patch(d.pop("patch", UNSET))

        def _parse_session_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        session_id = _parse_session_id(d.pop("session_id", UNSET))

        fork_in = cls(
            from_step=from_step,
            patch=patch,
            session_id=session_id,
        )

        return fork_in
