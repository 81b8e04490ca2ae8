"""What a run spends (`Usage`) and what it may spend (`Budget`).

Usage is saved with every checkpoint, so a resumed or forked run continues from what its
saves say it spent. A budget is checked against it before each model call and each tool
call (`Budget.first_spent`); the engine decides what crossing one does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

from app.domain.strict import Strict

# Cost is summed in floats; rounding each sum keeps 0.1 + 0.2 from reading as over 0.3.
COST_DIGITS = 9


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    model_calls: int = 0
    # Calls Perdure executed (http, python), counted when their result is saved; client
    # tools, rejected calls and argument errors run nothing and are not counted.
    tool_calls: int = 0
    # From the model spec's `price`; 0 for a model without one.
    cost_usd: float = 0.0
    # Time the run was driven by a worker: not while queued, paused for a human or a
    # client tool, or waiting out a retry.
    wall_time_s: float = 0.0

    def add(self, other: Usage) -> None:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.model_calls += other.model_calls
        self.tool_calls += other.tool_calls
        self.cost_usd = round(self.cost_usd + other.cost_usd, COST_DIGITS)
        self.wall_time_s = round(self.wall_time_s + other.wall_time_s, 3)

    def minus(self, other: Usage) -> Usage:
        """This usage without `other`'s part of it (a tree's, without its root's own)."""
        return Usage.from_dict({k: v - getattr(other, k) for k, v in self.as_dict().items()})

    def plus(self, other: Usage) -> Usage:
        total = self.copy()
        total.add(other)
        return total

    def copy(self) -> Usage:
        return Usage(**vars(self))

    def as_dict(self) -> dict[str, Any]:
        # Its fields and nothing else (a dataclass without slots): `fields()` is slow, and
        # this runs several times per turn.
        return dict(vars(self))

    @classmethod
    def from_dict(cls, data: Any) -> Usage:
        """From a saved usage (or a row of sums); counters saved before one existed read
        as 0."""
        data = data or {}
        return cls(
            input_tokens=int(data.get("input_tokens") or 0),
            output_tokens=int(data.get("output_tokens") or 0),
            model_calls=int(data.get("model_calls") or 0),
            tool_calls=int(data.get("tool_calls") or 0),
            cost_usd=round(float(data.get("cost_usd") or 0.0), COST_DIGITS),
            wall_time_s=round(float(data.get("wall_time_s") or 0.0), 3),
        )


# Each limit and the usage counter it bounds.
LIMITS = {
    "max_input_tokens": "input_tokens",
    "max_output_tokens": "output_tokens",
    "max_cost_usd": "cost_usd",
    "max_tool_calls": "tool_calls",
    "max_wall_time_s": "wall_time_s",
    "max_model_calls": "model_calls",
}


class Budget(Strict):
    """Limits on what a run (or all runs of a session) may spend; an absent limit is none.

    A limit is spent once usage reaches it. It is checked before each model call and each
    tool call, so tokens and cost may end past it by what the last model call used.
    """

    max_input_tokens: int | None = Field(default=None, ge=0, le=2**62)
    max_output_tokens: int | None = Field(default=None, ge=0, le=2**62)
    max_cost_usd: float | None = Field(default=None, ge=0, le=1e9)
    max_tool_calls: int | None = Field(default=None, ge=0, le=2**31 - 1)
    max_wall_time_s: float | None = Field(
        default=None,
        ge=0,
        le=10 * 365 * 24 * 3600,
        description="Seconds the run is driven by a worker, from its first claim; time "
        "paused for a human or a client tool, queued, or waiting out a retry is not "
        "counted.",
    )
    max_model_calls: int | None = Field(default=None, ge=0, le=2**31 - 1)

    def limits(self) -> dict[str, float]:
        return {name: value for name in LIMITS if (value := getattr(self, name)) is not None}

    def merged(self, override: Budget | None) -> Budget:
        """This budget with the limits `override` sets replacing its own."""
        if override is None:
            return self
        return self.model_copy(update=override.limits())

    def loosened_by(self, override: Budget | None) -> list[str]:
        """The limits `override` would raise above this budget's."""
        if override is None:
            return []
        mine = self.limits()
        return sorted(k for k, v in override.limits().items() if k in mine and v > mine[k])

    def left_for(self, used: Usage, shares: int) -> Budget:
        """What is left of each limit after `used`, split evenly among `shares` runs (a
        parent's children started together): their limits, so that together they cannot
        spend more than is left, however they run."""
        left: dict[str, float] = {}
        for name, value in self.limits().items():
            rest = max(0.0, value - getattr(used, LIMITS[name])) / shares
            left[name] = int(rest) if isinstance(value, int) else rest
        return Budget.model_validate(left)

    def tightened(self, other: Budget) -> Budget:
        """Each limit the lower of this budget's and `other`'s (one alone applies as is)."""
        mine, theirs = self.limits(), other.limits()
        both = {**mine, **theirs}
        return Budget.model_validate(
            {k: min(v, mine.get(k, v), theirs.get(k, v)) for k, v in both.items()}
        )

    def first_spent(self, usage: Usage, *, skip: frozenset[str] = frozenset()) -> Exceeded | None:
        """The first limit (in `LIMITS` order) that `usage` has reached, if any."""
        for name, value in self.limits().items():
            used = getattr(usage, LIMITS[name])
            if name not in skip and used >= value:
                return Exceeded("run", name, value, used)
        return None


@dataclass(frozen=True)
class Exceeded:
    """Which budget ended a run: its scope (`run` or `session`), the limit, and usage."""

    scope: Literal["run", "session"]
    limit: str
    max: float
    used: float

    def of_session(self) -> Exceeded:
        return Exceeded("session", self.limit, self.max, self.used)

    def as_dict(self) -> dict[str, Any]:
        return {"scope": self.scope, "limit": self.limit, "max": self.max, "used": self.used}
