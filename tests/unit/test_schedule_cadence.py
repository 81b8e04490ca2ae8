"""Cadences and firing plans (app/domain/schedule.py): pure, no database."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from app.domain.schedule import MAX_ROWS, Cadence, CatchUp, SkipReason, plan
from app.errors import ScheduleInvalid

NY = ZoneInfo("America/New_York")
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def cron(expression: str, zone: str = "UTC") -> Cadence:
    return Cadence.checked(expression, None, zone, T0)


def every(seconds: int, anchor: datetime = T0) -> Cadence:
    return Cadence.checked(None, seconds, "UTC", anchor)


def walk(cadence: Cadence, start: datetime, end: datetime) -> list[datetime]:
    """Due times after `start` up to `end`, by next_after."""
    out, due = [], cadence.next_after(start)
    while due <= end:
        out.append(due)
        due = cadence.next_after(due)
    return out


def local(times: list[datetime]) -> list[str]:
    return [t.astimezone(NY).isoformat() for t in times]


def test_interval__due_at_anchor_plus_multiples_never_at_the_anchor() -> None:
    c = every(10)
    assert c.next_after(T0 - timedelta(days=1)) == T0 + timedelta(seconds=10)
    assert c.next_after(T0) == T0 + timedelta(seconds=10)
    assert c.next_after(T0 + timedelta(seconds=10)) == T0 + timedelta(seconds=20)
    assert c.next_after(T0 + timedelta(seconds=15)) == T0 + timedelta(seconds=20)
    assert c.prev_before(T0 + timedelta(seconds=20)) == T0 + timedelta(seconds=10)
    assert c.prev_before(T0 + timedelta(seconds=21)) == T0 + timedelta(seconds=20)
    assert c.prev_before(T0 + timedelta(seconds=10)) is None


def test_dst_spring_forward__a_missing_wall_time_fires_once_right_after_the_gap() -> None:
    """America/New_York skips 02:00-03:00 on 2026-03-08: a daily 02:30 fires at 03:00."""
    got = walk(
        cron("30 2 * * *", "America/New_York"),
        datetime(2026, 3, 6, 12, tzinfo=NY),
        datetime(2026, 3, 10, 12, tzinfo=NY),
    )
    assert local(got) == [
        "2026-03-07T02:30:00-05:00",
        "2026-03-08T03:00:00-04:00",
        "2026-03-09T02:30:00-04:00",
        "2026-03-10T02:30:00-04:00",
    ]


def test_dst_fall_back__a_repeated_wall_time_fires_once_a_daily_job() -> None:
    """01:00-02:00 happens twice on 2026-11-01: a daily 01:30 fires at the first only."""
    c = cron("30 1 * * *", "America/New_York")
    got = walk(c, datetime(2026, 10, 31, 12, tzinfo=NY), datetime(2026, 11, 2, 12, tzinfo=NY))
    assert local(got) == ["2026-11-01T01:30:00-04:00", "2026-11-02T01:30:00-05:00"]
    # 25 hours of real time between them, as the wall clock says.
    assert got[1] - got[0] == timedelta(hours=25)
    # Backwards gives the same due times.
    assert c.prev_before(got[1]) == got[0]


def test_dst_fall_back__hourly_follows_elapsed_time_in_both_passes() -> None:
    got = walk(
        cron("0 * * * *", "America/New_York"),
        datetime(2026, 11, 1, 0, 30, tzinfo=NY),
        datetime(2026, 11, 1, 3, 0, tzinfo=NY),
    )
    assert local(got) == [
        "2026-11-01T01:00:00-04:00",
        "2026-11-01T01:00:00-05:00",
        "2026-11-01T02:00:00-05:00",
        "2026-11-01T03:00:00-05:00",
    ]
    assert all(b - a == timedelta(hours=1) for a, b in itertools.pairwise(got))


def test_firing_across_a_dst_change__each_due_time_once_on_the_right_instant() -> None:
    """Workers looking every 10 minutes through the fall-back night fire a Europe/Paris
    `0 2 * * *` and `*/30 * * * *` exactly at their instants, each once."""
    paris = ZoneInfo("Europe/Paris")
    for expression, expected in (
        ("0 2 * * *", ["2026-10-25T02:00:00+02:00"]),
        (
            "*/30 2 * * *",
            ["2026-10-25T02:00:00+02:00", "2026-10-25T02:30:00+02:00"],
        ),
        (
            "*/30 * * * *",
            [
                "2026-10-25T01:30:00+02:00",
                "2026-10-25T02:00:00+02:00",
                "2026-10-25T02:30:00+02:00",
                "2026-10-25T02:00:00+01:00",
                "2026-10-25T02:30:00+01:00",
                "2026-10-25T03:00:00+01:00",
            ],
        ),
    ):
        cadence = cron(expression, "Europe/Paris")
        now = datetime(2026, 10, 25, 1, 15, tzinfo=paris).astimezone(UTC)
        next_due = cadence.next_after(now)
        fired: list[datetime] = []
        while now < datetime(2026, 10, 25, 3, 5, tzinfo=paris).astimezone(UTC):
            now += timedelta(minutes=10)
            step = plan(cadence, next_due, now, 3600, CatchUp.ALL)
            assert step.skip == []
            fired += step.fire
            next_due = step.next_due
        assert [t.astimezone(paris).isoformat() for t in fired] == expected, expression


@pytest.mark.parametrize(
    ("cron_", "interval", "zone", "field"),
    [
        (None, None, "UTC", "cron"),
        ("* * * * *", 5, "UTC", "cron"),
        ("not cron", None, "UTC", "cron"),
        ("* * * *", None, "UTC", "cron"),
        ("* * * * * * *", None, "UTC", "cron"),
        ("61 * * * *", None, "UTC", "cron"),
        ("0 0 30 2 *", None, "UTC", "cron"),  # February 30th: never due
        ("R * * * *", None, "UTC", "cron"),  # drawn anew at each parse
        ("0 R(1-3) * * *", None, "UTC", "cron"),
        ("* * * * *", None, "Mars/Olympus", "timezone"),
        ("* * * * *", None, "../../etc/passwd", "timezone"),
    ],
)
def test_what_cannot_run_is_refused_naming_the_field(
    cron_: str | None, interval: int | None, zone: str, field: str
) -> None:
    with pytest.raises(ScheduleInvalid) as caught:
        Cadence.checked(cron_, interval, zone, T0)
    assert caught.value.field == (field,)


def test_month_and_day_names_are_not_random_fields() -> None:
    assert cron("0 9 * MAR-APR FRI").next_after(T0).isoformat() == "2026-03-06T09:00:00+00:00"


def test_plan__on_time_one_fire_and_the_next_due_time() -> None:
    c = every(60)
    due = T0 + timedelta(seconds=60)
    step = plan(c, due, due + timedelta(seconds=0.3), 3600, CatchUp.ALL)
    assert (step.fire, step.skip, step.next_due) == ([due], [], due + timedelta(seconds=60))
    not_yet = plan(c, due, due - timedelta(seconds=1), 3600, CatchUp.ALL)
    assert (not_yet.fire, not_yet.skip, not_yet.next_due) == ([], [], due)


def test_plan__after_downtime_older_than_the_window_missed_within_it_fired() -> None:
    c = every(10)
    now = T0 + timedelta(seconds=100)  # due at 10, 20, ..., 100
    step = plan(c, T0 + timedelta(seconds=10), now, 35, CatchUp.ALL)
    assert [(d - T0).seconds for d, _ in step.skip] == [10, 20, 30, 40, 50, 60]
    assert {reason for _, reason in step.skip} == {SkipReason.MISSED}
    assert [(d - T0).seconds for d in step.fire] == [70, 80, 90, 100]
    assert step.next_due == T0 + timedelta(seconds=110)
    assert not step.truncated


def test_plan__catch_up_latest_fires_only_the_newest() -> None:
    c = every(10)
    step = plan(c, T0 + timedelta(seconds=10), T0 + timedelta(seconds=105), 35, CatchUp.LATEST)
    assert [(d - T0).seconds for d in step.fire] == [100]
    assert [((d - T0).seconds, r) for d, r in step.skip] == [
        *[(s, SkipReason.MISSED) for s in (10, 20, 30, 40, 50, 60)],
        (70, SkipReason.SUPERSEDED),
        (80, SkipReason.SUPERSEDED),
        (90, SkipReason.SUPERSEDED),
    ]
    assert step.next_due == T0 + timedelta(seconds=110)


def test_plan__long_downtimes_are_bounded_rows_per_transaction() -> None:
    c = every(1)
    start = T0 + timedelta(seconds=1)
    # A day down, an hour of window: the latest MAX_ROWS missed are listed, the rest noted.
    step = plan(c, start, T0 + timedelta(days=1), 3600, CatchUp.ALL)
    assert len(step.skip) == MAX_ROWS
    assert step.truncated
    assert step.fire == []
    assert step.skip[-1][0] == T0 + timedelta(days=1, seconds=-3601)
    # The window is then fired MAX_ROWS at a time, each claim taking up where it stopped.
    now = T0 + timedelta(days=1)
    fired: list[datetime] = []
    next_due = step.next_due
    for _ in range(40):
        chunk = plan(c, next_due, now, 3600, CatchUp.ALL)
        assert len(chunk.fire) <= MAX_ROWS
        fired += chunk.fire
        next_due = chunk.next_due
    assert len(fired) == 3601
    assert fired == sorted(set(fired))
    assert next_due == now + timedelta(seconds=1)
