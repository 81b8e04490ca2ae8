from enum import StrEnum


class ScheduleCreateOverlap(StrEnum):
    CANCEL_PREVIOUS = "cancel_previous"
    QUEUE = "queue"
    SKIP = "skip"

    def __str__(self) -> str:
        return str(self.value)
