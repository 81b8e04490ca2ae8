"""Opaque keyset cursors over (created_at, id), shared by every list."""

from __future__ import annotations

import base64
import json
from datetime import datetime
from uuid import UUID

from app import errors


def encode_cursor(created_at: datetime, row_id: UUID | str) -> str:
    raw = json.dumps([created_at.isoformat(), str(row_id)]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_text_cursor(cursor: str) -> tuple[datetime, str]:
    """(created_at, id) of a list whose ids are text (sessions, agents)."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        created, row_id = json.loads(base64.urlsafe_b64decode(padded))
        if not isinstance(row_id, str):
            raise TypeError(row_id)
        return datetime.fromisoformat(created), row_id
    except (ValueError, TypeError) as exc:
        raise errors.InvalidCursor("the cursor is not one this API returned") from exc


def decode_cursor(cursor: str) -> tuple[datetime, UUID]:
    """(created_at, id) of a list whose ids are UUIDs (runs, approvals)."""
    created, row_id = decode_text_cursor(cursor)
    try:
        return created, UUID(row_id)
    except ValueError as exc:
        raise errors.InvalidCursor("the cursor is not one this API returned") from exc


def encode_key_cursor(key: str) -> str:
    """A cursor after a text key (lists ordered by a caller-chosen id)."""
    return base64.urlsafe_b64encode(json.dumps([key]).encode()).decode().rstrip("=")


def decode_key_cursor(cursor: str) -> str:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        (key,) = json.loads(base64.urlsafe_b64decode(padded))
    except (ValueError, TypeError) as exc:
        raise errors.InvalidCursor("the cursor is not one this API returned") from exc
    if not isinstance(key, str):
        raise errors.InvalidCursor("the cursor is not one this API returned")
    return key


def encode_time_cursor(at: datetime) -> str:
    """A cursor after an instant (lists keyed by time within one parent)."""
    return encode_key_cursor(at.isoformat())


def decode_time_cursor(cursor: str) -> datetime:
    try:
        at = datetime.fromisoformat(decode_key_cursor(cursor))
    except ValueError as exc:
        raise errors.InvalidCursor("the cursor is not one this API returned") from exc
    if at.tzinfo is None:
        raise errors.InvalidCursor("the cursor is not one this API returned")
    return at
