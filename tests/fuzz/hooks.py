"""Schemathesis hooks for tests/fuzz (loaded through SCHEMATHESIS_HOOKS).

`POST /v1/sessions/{id}/runs?stream=true` answers with the run's stream, which stays open
until the run ends, and a fuzzed agent's run may wait on a human for good: the request
timeout would report that as a failure. Such a send is made without the stream instead;
`stream` values that are not booleans still reach the service (and get their 422).
"""

from __future__ import annotations

from typing import Any

import schemathesis

TRUE = {True, "true", "True", "1", "yes", "on", "t", "y"}


@schemathesis.hook
def map_query(context: Any, query: dict[str, Any] | None) -> dict[str, Any] | None:
    if query and query.get("stream") in TRUE:
        return {**query, "stream": "false"}
    return query
