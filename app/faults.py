"""Named crash points for fault tests. Inert unless `PERDURE_FAULTS` names the point.

A test starts a real `perdure worker` with `PERDURE_FAULTS=after_turn_commit` and the
process SIGKILLs itself the first time it passes that point: no cleanup, no `finally`,
exactly like an OOM kill or a pulled plug.
"""

from __future__ import annotations

import os
import signal
from functools import lru_cache

ENV = "PERDURE_FAULTS"

POINTS = frozenset(
    {
        "after_claim",  # a run was claimed, nothing else happened
        "after_input_commit",  # the run's input was appended
        "after_turn_commit",  # a model turn and its calls were saved, no tool ran yet
        "after_result_commit",  # a tool result was saved
        "after_message_commit",  # messages alone were saved (a planner's plan, a prompt)
        "after_fire_claim",  # a due schedule was locked, nothing written yet
        "after_fire_commit",  # a schedule's fires and their runs were committed
        "after_children_commit",  # a pause started child runs (sub-agents)
        "after_child_end_commit",  # a child run ended (and queued its parent, if last)
    }
)


@lru_cache(maxsize=1)
def armed() -> frozenset[str]:
    """The points this process was started with (read once: points sit on the hot path)."""
    return frozenset(filter(None, os.environ.get(ENV, "").split(",")))


def point(name: str) -> None:
    assert name in POINTS, f"unknown fault point {name}"
    if name in armed():
        os.kill(os.getpid(), signal.SIGKILL)
