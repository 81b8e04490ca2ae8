"""Webhook signatures (checked by the spec's reference library) and attempt outcomes."""

from __future__ import annotations

import email.utils
import time

import httpx
import pytest
from standardwebhooks import Webhook

from app.domain import webhooks as signing
from app.worker.webhooks import backoff_s, outcome_of, retry_after_s


def test_signatures_verify_with_the_reference_library() -> None:
    secret = signing.new_secret()
    body = b'{"id":1,"type":"run.finished"}'
    headers = signing.headers(secret, "evt_t/s/1", int(time.time()), body)
    assert Webhook(secret).verify(body, headers) == {"id": 1, "type": "run.finished"}


@pytest.mark.parametrize("secret", ["nope", "whsec_!!!", "whsec_c2hvcnQ="])
def test_malformed_secrets_are_refused(secret: str) -> None:
    with pytest.raises(ValueError, match="secret"):
        signing.secret_key(secret)


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (200, "delivered"),
        (204, "delivered"),
        (500, "pending"),
        (503, "pending"),
        (429, "pending"),
        (400, "failed"),
        (404, "failed"),
        (301, "failed"),
    ],
)
def test_outcomes(status: int, expected: str) -> None:
    assert outcome_of(httpx.Response(status)).status == expected


def test_a_429_retry_after_is_honoured() -> None:
    assert outcome_of(httpx.Response(429, headers={"retry-after": "120"})).retry_after_s == 120
    later = email.utils.formatdate(time.time() + 60, usegmt=True)
    assert 55 < (retry_after_s(later) or 0) <= 60
    assert retry_after_s("soon") is None


def test_backoff_doubles_with_jitter_up_to_its_cap() -> None:
    for attempt, ceiling in ((1, 5), (2, 10), (3, 20), (30, 3600)):
        wait = backoff_s(attempt, 5, 3600)
        assert ceiling / 2 <= wait <= ceiling
