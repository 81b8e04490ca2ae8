from enum import StrEnum


class Outcome(StrEnum):
    FAILED = "failed"
    SKIPPED = "skipped"
    STARTED = "started"

    def __str__(self) -> str:
        return str(self.value)
