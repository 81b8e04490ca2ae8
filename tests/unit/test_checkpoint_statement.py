"""The checkpoint statement stays within what psycopg caches the parsing of: past 4,096
bytes it is parsed afresh on every save, which cost 7 % of a worker's CPU."""

from __future__ import annotations

from psycopg._queries import MAX_CACHED_STATEMENT_LENGTH

from app.store.checkpoint import CHECKPOINT


def test_checkpoint_statement__fits_psycopgs_parse_cache() -> None:
    assert len(CHECKPOINT) <= MAX_CACHED_STATEMENT_LENGTH, len(CHECKPOINT)
