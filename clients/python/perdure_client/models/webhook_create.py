from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="WebhookCreate")


@_attrs_define
class WebhookCreate:
    """
    Attributes:
        events (list[str]): Event types to deliver (`*`: all): agent.drift, approval.decided, approval.requested,
            child.ended, child.started, run.budget_exceeded, run.cancel_requested, run.cancelled, run.failed, run.finished,
            run.paused, run.queued, run.retrying, run.started, run.taken_over, tool.settled, tool.started,
            tool_results.received, turn.saved
        url (str): Where events are POSTed.
        secret (None | str | Unset): `whsec_` + base64 of 24 to 64 bytes; made for you when absent.
    """

    events: list[str]
    url: str
    secret: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        events = self.events

        url = self.url

        secret: None | str | Unset
        if isinstance(self.secret, Unset):
            secret = UNSET
        else:
            secret = self.secret

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "events": events,
                "url": url,
            }
        )
        if secret is not UNSET:
            field_dict["secret"] = secret

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        events = cast(list[str], d.pop("events"))

        url = d.pop("url")

        def _parse_secret(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        secret = _parse_secret(d.pop("secret", UNSET))

        webhook_create = cls(
            events=events,
            url=url,
            secret=secret,
        )

        return webhook_create
