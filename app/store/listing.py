"""What every list shares: time ranges, metadata containment, keyset pages."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import Column, ColumnElement, literal
from sqlalchemy.dialects.postgresql import JSONB

from app.store.cursors import encode_cursor

T = TypeVar("T")


@dataclass(frozen=True)
class TimeRange:
    """Half-open: `after < t < before`; None leaves that side open."""

    after: datetime | None = None
    before: datetime | None = None

    def clauses(self, column: Column[Any]) -> list[ColumnElement[bool]]:
        out = []
        if self.after is not None:
            out.append(column > self.after)
        if self.before is not None:
            out.append(column < self.before)
        return out


def metadata_contains(
    column: Column[Any], pairs: Sequence[tuple[str, str]]
) -> list[ColumnElement[bool]]:
    """One `@>` per pair (ANDed): what the column's GIN (jsonb_path_ops) index answers."""
    return [
        column.op("@>", is_comparison=True)(literal({key: value}, JSONB)) for key, value in pairs
    ]


def page(
    records: list[T], limit: int, key: Callable[[T], tuple[datetime, Any]]
) -> tuple[list[T], str | None]:
    """The first `limit` of `limit + 1` records read, and the cursor after them if more."""
    if len(records) <= limit:
        return records, None
    records = records[:limit]
    return records, encode_cursor(*key(records[-1]))
