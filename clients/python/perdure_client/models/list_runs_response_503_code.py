from enum import StrEnum


class ListRunsResponse503Code(StrEnum):
    DATABASE_UNAVAILABLE = "DATABASE_UNAVAILABLE"

    def __str__(self) -> str:
        return str(self.value)
