"""The checkpoint statement is sent as one line (`compact`): a `--` left in it would make
everything after it a comment, and the statement would silently do less."""

from __future__ import annotations

from app.store.checkpoint import CHECKPOINTS


def test_checkpoint_statement__one_line_with_no_comment_left() -> None:
    assert "\n" not in CHECKPOINTS
    assert "--" not in CHECKPOINTS
