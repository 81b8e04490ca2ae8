from enum import StrEnum


class ScheduleCreateCatchUp(StrEnum):
    ALL = "all"
    LATEST = "latest"

    def __str__(self) -> str:
        return str(self.value)
