"""The wake-up channel: sends NOTIFY it in the same transaction as the work they announce."""

from __future__ import annotations

from sqlalchemy import text

WAKE_CHANNEL = "perdure_runs"
# Delivered at commit, so a worker never wakes for a run it cannot see yet.
NOTIFY = text(f"SELECT pg_notify('{WAKE_CHANNEL}', '')")
