"""The filters lists share: time ranges and `?metadata.<key>=<value>` (docs/design.md,
"Listings"). Each is a dependency, so its query parameters show in the contract."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated

from fastapi import Depends, Query, Request
from pydantic import AwareDatetime, BeforeValidator

from app import errors
from app.domain import metadata
from app.store.listing import TimeRange

NUMBER = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*")


def _not_a_number(value: object) -> object:
    """Pydantic reads a number as Unix time; the contract says RFC 3339 (`date-time`)."""
    if isinstance(value, str) and NUMBER.fullmatch(value):
        raise ValueError("a time is RFC 3339 with an offset, e.g. 2026-12-01T09:00:00Z")
    return value


Instant = Annotated[
    AwareDatetime | None,
    BeforeValidator(_not_a_number),
    Query(description="An RFC 3339 time with its offset, e.g. `2026-12-01T09:00:00Z`."),
]


def time_range(name: str, after: datetime | None, before: datetime | None) -> TimeRange:
    """`after < t < before`.

    Raises:
        FilterInvalid: the range ends before it starts (it could match nothing).
    """
    if after is not None and before is not None and after >= before:
        raise errors.FilterInvalid(
            f"{name}_after must be earlier than {name}_before", field=(f"{name}_after",)
        )
    return TimeRange(after, before)


def created_range(created_after: Instant = None, created_before: Instant = None) -> TimeRange:
    return time_range("created", created_after, created_before)


def updated_range(updated_after: Instant = None, updated_before: Instant = None) -> TimeRange:
    return time_range("updated", updated_after, updated_before)


def metadata_filters(request: Request) -> list[tuple[str, str]]:
    """`?metadata.<key>=<value>` pairs, ANDed (dynamic names: not in the contract's
    parameters, so each list's description says so)."""
    return metadata.filters(request.query_params.multi_items())


CreatedRange = Annotated[TimeRange, Depends(created_range)]
UpdatedRange = Annotated[TimeRange, Depends(updated_range)]
MetadataFilters = Annotated[list[tuple[str, str]], Depends(metadata_filters)]
METADATA_FILTER_DOC = (
    "Filter on metadata with `?metadata.<key>=<value>` (several are ANDed; answered from "
    "a containment index)."
)
