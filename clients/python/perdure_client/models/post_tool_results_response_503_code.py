from enum import StrEnum


class PostToolResultsResponse503Code(StrEnum):
    DATABASE_UNAVAILABLE = "DATABASE_UNAVAILABLE"

    def __str__(self) -> str:
        return str(self.value)
