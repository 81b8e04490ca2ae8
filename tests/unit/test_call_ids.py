"""Call ids of a new turn, and the stored shape of an assistant turn: pure rules, no DB."""

from __future__ import annotations

from collections.abc import Iterator

from app.domain.run import CallStatus, Message, ToolCall
from app.engine.transcript import call_ids, model_messages
from app.store.checkpoint import message_from_row, stored_content


def minted() -> Iterator[str]:
    n = 0
    while True:
        n += 1
        yield f"call_minted{n}"


def assign(provider_ids: list[str | None], taken: set[str]) -> list[str]:
    mint = minted()
    return call_ids(provider_ids, taken, lambda: next(mint))


def test_call_ids__the_models_own_when_free() -> None:
    assert assign(["call_a1", "toolu_01", "a1B2c3D4e"], set()) == [
        "call_a1",
        "toolu_01",
        "a1B2c3D4e",
    ]


def test_call_ids__minted_when_missing_taken_repeated_or_unusable() -> None:
    ids = assign(
        [None, "call_0", "call_1", "call_1", "has space", "x" * 201, "ünïcode", ""],
        taken={"call_0"},
    )
    assert ids == [
        "call_minted1",
        "call_minted2",  # taken by an earlier turn of the session
        "call_1",
        "call_minted3",  # twice in one turn: the first keeps it
        "call_minted4",  # cannot go in a header
        "call_minted5",
        "call_minted6",
        "call_minted7",
    ]


def test_call_ids__a_minted_id_never_collides() -> None:
    mint = iter(["call_0", "call_1", "call_2"])
    assert call_ids([None, None], {"call_0"}, lambda: next(mint)) == ["call_1", "call_2"]


def test_model_messages__calls_go_by_the_models_ids() -> None:
    ok = CallStatus.OK
    sent = model_messages(
        [
            Message(1, "assistant", "", ["call_0"], {"openai": {"reasoning_content": "r"}}),
            ToolCall("call_0", 2, 1, 0, "add", {}, ok, 1, provider_call_id="call_0"),
            Message(3, "assistant", "", ["call_minted1", "legacy"]),
            ToolCall("call_minted1", 4, 3, 0, "add", {}, ok, 2, provider_call_id="call_0"),
            ToolCall("legacy", 5, 3, 1, "add", {}, ok, 3),  # saved before provider ids
        ]
    )
    assert sent[0]["provider_data"] == {"openai": {"reasoning_content": "r"}}
    assert [c["id"] for c in sent[0]["tool_calls"]] == ["call_0"]
    assert [c["id"] for c in sent[2]["tool_calls"]] == ["call_0", "legacy"]
    assert "provider_data" not in sent[2]
    assert [m["tool_call_id"] for m in sent if m["role"] == "tool"] == [
        "call_0",
        "call_0",
        "legacy",
    ]


def test_assistant_content__old_rows_load_and_new_keys_round_trip() -> None:
    old = {"text": "hi", "tool_call_ids": ["call_1"]}
    assert message_from_row(1, "assistant", old) == Message(1, "assistant", "hi", ["call_1"])
    assert stored_content("assistant", "hi", ["call_1"], {}) == old  # unchanged when empty
    data = {"anthropic": {"content": [{"type": "thinking", "signature": "s"}]}}
    stored = stored_content("assistant", "hi", ["call_1"], data)
    assert stored == {**old, "provider_data": data}
    assert message_from_row(1, "assistant", stored).provider_data == data
