"""Schedules as pure rules: when a cadence is due, and what a firing does with due times.

A cadence is a cron expression read in a time zone (croniter over `zoneinfo`), or a fixed
interval from an anchor. Due times are instants (UTC); the worker's store code decides
which of them to fire, skip or leave for later with `plan`, on the database's clock.

Daylight saving (the rule of Vixie cron): a wall-clock time that does not exist (spring
forward) fires at the first instant after the gap; a wall-clock time that happens twice
(fall back) fires once, at its first occurrence, unless the expression's hour field is
`*` (hourly and finer cadences follow elapsed time, so they fire in both passes).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from functools import lru_cache
from zoneinfo import ZoneInfo, available_timezones

from croniter import croniter

from app.errors import FieldError, ScheduleInvalid

# At most this many fire rows per firing transaction, so a schedule that was down for a
# long time is caught up in bounded steps instead of one huge transaction.
MAX_ROWS = 100
# The most due times a cadence looks through in one call (the backstop of every loop).
MAX_STEPS = 10_000
# croniter's random field (`R`, `R(0-30)`), not a letter of a month or day name.
RANDOM_FIELD = re.compile(r"(?<![A-Za-z])R(?![A-Za-z])", re.IGNORECASE)


class Overlap(StrEnum):
    SKIP = "skip"
    QUEUE = "queue"
    CANCEL_PREVIOUS = "cancel_previous"


class CatchUp(StrEnum):
    ALL = "all"  # every missed due time within the window fires
    LATEST = "latest"  # only the latest of them fires; the others are skipped


class Outcome(StrEnum):
    STARTED = "started"
    SKIPPED = "skipped"
    FAILED = "failed"


class SkipReason(StrEnum):
    OVERLAP = "overlap"  # the previous fire's run had not ended (overlap: skip)
    MISSED = "missed"  # older than the catch-up window when a worker got to it
    SUPERSEDED = "superseded"  # within the window, but catch_up is `latest`


@lru_cache(maxsize=1)
def _zones() -> frozenset[str]:
    return frozenset(available_timezones())


def check_timezone(name: str) -> ZoneInfo:
    """The zone named; only names of the tz database (never a path zoneinfo would open)."""
    if name not in _zones():
        raise ScheduleInvalid(
            f"unknown time zone {name!r}: use an IANA name such as 'Europe/Paris' or 'UTC'",
            field=("timezone",),
        )
    return ZoneInfo(name)


@dataclass(frozen=True)
class Cadence:
    """When a schedule is due: `cron` in `timezone`, or every `interval_s` from `anchor`."""

    cron: str | None
    interval_s: int | None
    timezone: str
    anchor: datetime  # interval cadences only: due at anchor + k * interval_s (k >= 1)
    _fixed_hour: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        if self.cron is not None:
            try:
                hours = croniter(self.cron).expanded[1]
            except Exception as exc:  # croniter raises many kinds for a bad expression
                raise _bad_cron(self.cron, exc) from exc
            object.__setattr__(self, "_fixed_hour", hours != ["*"])

    @classmethod
    def checked(
        cls, cron: str | None, interval_s: int | None, timezone: str, anchor: datetime
    ) -> Cadence:
        """A cadence from a request, refused (ScheduleInvalid, naming the field) unless it
        is runnable: one of cron and interval, a cron of 5 or 6 fields that is due at
        least once, a known zone."""
        if (cron is None) == (interval_s is None):
            raise ScheduleInvalid("give exactly one of cron and interval_s", field=("cron",))
        check_timezone(timezone)
        if cron is not None:
            fields = cron.split()
            if not cron.startswith("@") and len(fields) not in (5, 6):
                raise ScheduleInvalid(
                    "a cron expression has 5 fields (minute hour day month weekday), or 6 "
                    "with seconds last",
                    field=("cron",),
                )
            if RANDOM_FIELD.search(cron):
                # croniter draws `R` anew at each parse: due times would move between
                # workers and claims, and "once per due time" would mean nothing.
                raise ScheduleInvalid(
                    "random fields (R) are not supported: write the time you want",
                    field=("cron",),
                )
            if not croniter.is_valid(cron):
                raise _bad_cron(cron, None)
        cadence = cls(cron, interval_s, timezone, anchor)
        cadence.next_after(anchor)  # raises when it is never due (say, February 30th)
        return cadence

    def next_after(self, t: datetime) -> datetime:
        """The first due time strictly after `t`."""
        if self.interval_s is not None:
            k = (t - self.anchor) // timedelta(seconds=self.interval_s) + 1
            return self.anchor + max(k, 1) * timedelta(seconds=self.interval_s)
        return self._cron_step(t, forward=True)

    def prev_before(self, t: datetime) -> datetime | None:
        """The last due time strictly before `t` (None: none since the anchor)."""
        if self.interval_s is not None:
            step = timedelta(seconds=self.interval_s)
            k = -((self.anchor - t) // step) - 1  # ceil((t - anchor) / step) - 1
            return self.anchor + k * step if k >= 1 else None
        return self._cron_step(t, forward=False)

    def _cron_step(self, t: datetime, *, forward: bool) -> datetime:
        assert self.cron is not None
        zone = ZoneInfo(self.timezone)
        try:
            it = croniter(self.cron, t.astimezone(zone))
            for _ in range(MAX_STEPS):
                due: datetime = it.get_next(datetime) if forward else it.get_prev(datetime)
                if not (self._fixed_hour and _second_pass(due)):
                    return due.astimezone(UTC)
        except Exception as exc:  # CroniterBadDateError and kin: never due
            raise _bad_cron(self.cron, exc) from exc
        raise _bad_cron(self.cron, None)


def _second_pass(local: datetime) -> bool:
    """A wall-clock time that happens twice (fall back), at its second occurrence."""
    if local.fold == 0:
        return False
    return local.replace(fold=0).utcoffset() != local.utcoffset()


def _bad_cron(cron: str, exc: Exception | None) -> ScheduleInvalid:
    why = f": {exc}" if exc is not None and str(exc) else ""
    return ScheduleInvalid(
        f"{cron!r} is not a cron expression that is ever due{why}"[:500],
        field=("cron",),
        problems=[FieldError((), "not a cron expression that is ever due")],
    )


def jittered(due: datetime, jitter_s: int) -> datetime:
    """When to fire `due`: up to `jitter_s` later, so that many schedules due at the same
    second (every morning at 7) do not all start their runs in the same instant."""
    return due + timedelta(seconds=random.uniform(0, jitter_s)) if jitter_s else due


@dataclass(frozen=True)
class Plan:
    """What one firing does: due times to start, due times to skip (with why), and the
    next due time it leaves for later."""

    fire: list[datetime]
    skip: list[tuple[datetime, SkipReason]]
    next_due: datetime
    # More skipped due times lay before the earliest one listed (not each recorded).
    truncated: bool = False


def plan(
    cadence: Cadence, next_due: datetime, now: datetime, window_s: float, catch_up: CatchUp
) -> Plan:
    """Decide what to do with every due time from `next_due` up to `now` (both the
    database's), writing at most MAX_ROWS rows.

    Due times older than the window are skipped as missed (the latest MAX_ROWS of them
    listed). Those within it fire, in order (at most MAX_ROWS now, the rest on the next
    claim), or with catch_up `latest` only the newest does and the rest are superseded.
    """
    window_start = now - timedelta(seconds=window_s)
    skip: list[tuple[datetime, SkipReason]] = []
    truncated = False
    first = next_due
    if next_due < window_start:
        missed, truncated = _between(cadence, next_due, window_start)
        skip += [(d, SkipReason.MISSED) for d in missed]
        first = cadence.next_after(window_start - timedelta(microseconds=1))
    if first > now:
        return Plan([], skip, first, truncated)
    if catch_up is CatchUp.LATEST:
        latest = cadence.prev_before(now + timedelta(microseconds=1))
        assert latest is not None
        assert latest >= first
        superseded, more = _between(cadence, first, latest)
        skip += [(d, SkipReason.SUPERSEDED) for d in superseded]
        return Plan([latest], skip, cadence.next_after(latest), truncated or more)
    fire: list[datetime] = []
    due = first
    while due <= now and len(fire) + len(skip) < MAX_ROWS:
        fire.append(due)
        due = cadence.next_after(due)
    return Plan(fire, skip, due, truncated)


def _between(cadence: Cadence, start: datetime, end: datetime) -> tuple[list[datetime], bool]:
    """Due times in [start, end), the latest MAX_ROWS of them, oldest first; and whether
    there were more."""
    found: list[datetime] = []
    due = cadence.prev_before(end)
    while due is not None and due >= start and len(found) < MAX_ROWS:
        found.append(due)
        due = cadence.prev_before(due)
    more = due is not None and due >= start
    return found[::-1], more
