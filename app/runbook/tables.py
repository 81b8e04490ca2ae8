"""Plain-text tables and values for people; `--json` prints the API's JSON instead."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any


def moment(value: str | None) -> str:
    """An API time as `2026-12-01 09:00:05` in UTC, or `-`."""
    if not value:
        return "-"
    try:
        return f"{datetime.fromisoformat(value):%Y-%m-%d %H:%M:%S}"
    except ValueError:
        return value


def compact(value: Any, width: int = 60) -> str:
    """One line of at most `width` characters: text as it is, anything else as JSON."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Columns padded to their widest cell; `(none)` for no rows."""
    if not rows:
        return "(none)"
    cells = [[str(c) if c not in (None, "") else "-" for c in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    return "\n".join(lines)


def fields(pairs: Sequence[tuple[str, Any]]) -> str:
    """`name: value` lines, names aligned."""
    width = max(len(name) for name, _ in pairs)
    return "\n".join(f"{name + ':':<{width + 1}} {value}" for name, value in pairs)
