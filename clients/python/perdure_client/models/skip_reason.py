from enum import StrEnum


class SkipReason(StrEnum):
    MISSED = "missed"
    OVERLAP = "overlap"
    SUPERSEDED = "superseded"

    def __str__(self) -> str:
        return str(self.value)
