"""Opaque keyset cursors over (created_at, id), shared by every list."""

from __future__ import annotations

import base64
import json
from datetime import datetime
from uuid import UUID

from app import errors


def encode_cursor(created_at: datetime, row_id: UUID) -> str:
    raw = json.dumps([created_at.isoformat(), str(row_id)]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, UUID]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        created, row_id = json.loads(base64.urlsafe_b64decode(padded))
        return datetime.fromisoformat(created), UUID(row_id)
    except (ValueError, TypeError) as exc:
        raise errors.InvalidCursor("the cursor is not one this API returned") from exc
