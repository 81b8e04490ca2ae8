"""Named crash points for fault tests. Inert unless `PERDURE_FAULTS` names the point.

A test starts a real `perdure worker` with `PERDURE_FAULTS=after_turn_commit` and the
process SIGKILLs itself the first time it passes that point: no cleanup, no `finally`,
exactly like an OOM kill or a pulled plug.
"""

from __future__ import annotations

import os
import signal

ENV = "PERDURE_FAULTS"

POINTS = frozenset(
    {
        "after_claim",  # a run was claimed, nothing else happened
        "after_input_commit",  # the run's input was appended
        "after_turn_commit",  # a model turn and its calls were saved, no tool ran yet
        "after_result_commit",  # a tool result was saved
    }
)


def point(name: str) -> None:
    assert name in POINTS, f"unknown fault point {name}"
    armed = os.environ.get(ENV)
    if armed and name in armed.split(","):
        os.kill(os.getpid(), signal.SIGKILL)
