from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.metadata_patch_in_metadata import MetadataPatchInMetadata


T = TypeVar("T", bound="MetadataPatchIn")


@_attrs_define
class MetadataPatchIn:
    """
    Attributes:
        metadata (MetadataPatchInMetadata): Keys to set; a key set to null is removed. Keys not named are kept.
    """

    metadata: MetadataPatchInMetadata

    def to_dict(self) -> dict[str, Any]:
        metadata = self.metadata.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "metadata": metadata,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.metadata_patch_in_metadata import MetadataPatchInMetadata  # noqa: PLC0415

        d = dict(src_dict)
        metadata = MetadataPatchInMetadata.from_dict(d.pop("metadata"))

        metadata_patch_in = cls(
            metadata=metadata,
        )

        return metadata_patch_in
