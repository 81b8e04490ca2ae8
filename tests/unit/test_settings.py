"""Lease settings: every combination a claimed run could not make progress under is refused."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.settings import Settings

LEASE_VARIABLES = ("PERDURE_LEASE_TTL_S", "PERDURE_HEARTBEAT_S", "PERDURE_LEASE_MARGIN_S")


@pytest.fixture(autouse=True)
def _no_lease_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in LEASE_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(
    ("ttl", "heartbeat", "margin"),
    [
        pytest.param(30, 10, 3, id="defaults"),
        pytest.param(4, 1, 0.5, id="the-tests"),
        pytest.param(3, 0.5, 0.5, id="the-crash-harness"),
        pytest.param(3, 1, 1.9, id="margin-plus-heartbeat-just-below-ttl"),
        pytest.param(2, 1, 0, id="no-margin-two-heartbeats"),
        pytest.param(30, 5, 24.9, id="long-margin"),
    ],
)
def test_lease_settings__accepted(ttl: float, heartbeat: float, margin: float) -> None:
    settings = Settings(lease_ttl_s=ttl, heartbeat_s=heartbeat, lease_margin_s=margin)
    assert settings.lease_margin_s + settings.heartbeat_s < settings.lease_ttl_s


@pytest.mark.parametrize(
    ("ttl", "heartbeat", "margin", "named"),
    [
        # The issue: accepted at start, then every run stopped `lease_lost` every 3 s.
        pytest.param(3, 1, 3, LEASE_VARIABLES, id="margin-equals-ttl"),
        pytest.param(3, 1, 2, LEASE_VARIABLES, id="margin-plus-heartbeat-equals-ttl"),
        pytest.param(30, 10, 20.5, LEASE_VARIABLES, id="margin-plus-heartbeat-above-ttl"),
        pytest.param(5, 1, 10, LEASE_VARIABLES, id="margin-above-ttl"),
        pytest.param(
            5, 10, 0.5, ("PERDURE_LEASE_TTL_S", "PERDURE_HEARTBEAT_S"), id="ttl-below-2-heartbeats"
        ),
        pytest.param(
            3, 2, 0, ("PERDURE_LEASE_TTL_S", "PERDURE_HEARTBEAT_S"), id="ttl-below-2-heartbeats-b"
        ),
    ],
)
def test_lease_settings__refused_naming_the_variables(
    ttl: float, heartbeat: float, margin: float, named: tuple[str, ...]
) -> None:
    with pytest.raises(ValidationError) as refused:
        Settings(lease_ttl_s=ttl, heartbeat_s=heartbeat, lease_margin_s=margin)
    message = refused.value.errors()[0]["msg"]
    assert "\n" not in message
    for name in named:
        assert name in message, message


def test_lease_settings__a_short_ttl_with_the_default_margin_is_refused() -> None:
    """`PERDURE_LEASE_TTL_S=3 PERDURE_HEARTBEAT_S=1` alone: the default margin (3 s) leaves
    no lease to start a tool call with."""
    with pytest.raises(ValidationError, match="PERDURE_LEASE_MARGIN_S"):
        Settings(lease_ttl_s=3, heartbeat_s=1)


def test_lease_settings__read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PERDURE_LEASE_TTL_S", "3")
    monkeypatch.setenv("PERDURE_HEARTBEAT_S", "1")
    with pytest.raises(ValidationError, match="PERDURE_LEASE_MARGIN_S"):
        Settings()
    monkeypatch.setenv("PERDURE_LEASE_MARGIN_S", "1.5")
    assert Settings().lease_margin_s == 1.5


def test_schedule_catch_up_window__shorter_than_two_polls_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("PERDURE_SCHEDULE_CATCH_UP_S", "PERDURE_SCHEDULE_POLL_S"):
        monkeypatch.delenv(name, raising=False)
    assert Settings(schedule_catch_up_s=2, schedule_poll_s=1).schedule_catch_up_s == 2
    with pytest.raises(ValidationError, match="PERDURE_SCHEDULE_CATCH_UP_S"):
        Settings(schedule_catch_up_s=1, schedule_poll_s=1)
