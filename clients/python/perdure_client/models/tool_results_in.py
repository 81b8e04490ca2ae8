from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.tool_output_in import ToolOutputIn


T = TypeVar("T", bound="ToolResultsIn")


@_attrs_define
class ToolResultsIn:
    """
    Attributes:
        results (list[ToolOutputIn]):
    """

    results: list[ToolOutputIn]

    def to_dict(self) -> dict[str, Any]:
        results = []
        for results_item_data in self.results:
            results_item = results_item_data.to_dict()
            results.append(results_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "results": results,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tool_output_in import ToolOutputIn  # noqa: PLC0415

        d = dict(src_dict)
        results = []
        _results = d.pop("results")
        for results_item_data in _results:
            results_item = ToolOutputIn.from_dict(results_item_data)

            results.append(results_item)

        tool_results_in = cls(
            results=results,
        )

        return tool_results_in
