from enum import StrEnum


class ListScheduleFiresResponse503Code(StrEnum):
    DATABASE_UNAVAILABLE = "DATABASE_UNAVAILABLE"

    def __str__(self) -> str:
        return str(self.value)
