"""Metadata: a caller's string labels on sessions and runs (`customer: acme`).

Bounded, so that a label stays cheap to store, to index (a GIN index over each table's
column answers `@>` filters) and to send back with every read: at most `MAX_KEYS` keys,
keys of `KEY_PATTERN` (they also name query parameters, `?metadata.<key>=`), values of
at most `MAX_VALUE_LENGTH` characters without NUL (Postgres's jsonb cannot hold one).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Annotated

from pydantic import Field, StringConstraints

from app import errors

MAX_KEYS = 32
MAX_KEY_LENGTH = 64
MAX_VALUE_LENGTH = 512
KEY_PATTERN = rf"^[A-Za-z0-9_.:-]{{1,{MAX_KEY_LENGTH}}}$"
VALUE_PATTERN = r"^[^\x00]*$"
KEY_RULE = f"1-{MAX_KEY_LENGTH} of A-Za-z0-9_.:-"
FILTER_PREFIX = "metadata."

MetadataKey = Annotated[str, StringConstraints(pattern=KEY_PATTERN)]
MetadataValue = Annotated[
    str, StringConstraints(max_length=MAX_VALUE_LENGTH, pattern=VALUE_PATTERN)
]
Metadata = Annotated[
    dict[MetadataKey, MetadataValue],
    Field(
        max_length=MAX_KEYS,
        description=f"String labels: at most {MAX_KEYS} keys ({KEY_RULE}), values of at "
        f"most {MAX_VALUE_LENGTH} characters. Filter lists with `?metadata.<key>=<value>`.",
    ),
]
MetadataPatch = Annotated[
    dict[MetadataKey, MetadataValue | None],
    Field(
        max_length=MAX_KEYS,
        description="Keys to set; a key set to null is removed. Keys not named are kept.",
    ),
]

_KEY = re.compile(KEY_PATTERN)


def merged(current: Mapping[str, str], patch: Mapping[str, str | None]) -> dict[str, str]:
    """`current` with `patch` applied (null removes a key), still within the bound.

    Raises:
        MetadataInvalid: the result would hold more than MAX_KEYS keys.
    """
    out = dict(current)
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    if len(out) > MAX_KEYS:
        raise errors.MetadataInvalid(
            f"metadata would hold {len(out)} keys; at most {MAX_KEYS}",
            field=("metadata",),
        )
    return out


def filters(query: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The `metadata.<key>=<value>` pairs of a query string, each checked like metadata.

    Several are ANDed; the same key twice asks for two values at once (and matches none).

    Raises:
        FilterInvalid: a key or value that no metadata could hold, or too many pairs.
    """
    pairs = [
        (name.removeprefix(FILTER_PREFIX), value)
        for name, value in query
        if name.startswith(FILTER_PREFIX)
    ]
    if len(pairs) > MAX_KEYS:
        raise errors.FilterInvalid(
            f"at most {MAX_KEYS} metadata filters", field=(FILTER_PREFIX + "*",)
        )
    for key, value in pairs:
        where = (FILTER_PREFIX + key[:MAX_KEY_LENGTH],)
        if not _KEY.fullmatch(key):
            raise errors.FilterInvalid(f"a metadata key is {KEY_RULE}", field=where)
        if len(value) > MAX_VALUE_LENGTH or "\x00" in value:
            raise errors.FilterInvalid(
                f"a metadata value is at most {MAX_VALUE_LENGTH} characters, without NUL",
                field=where,
            )
    return pairs
