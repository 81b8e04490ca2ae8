from enum import StrEnum


class GetSessionResponse503Code(StrEnum):
    DATABASE_UNAVAILABLE = "DATABASE_UNAVAILABLE"

    def __str__(self) -> str:
        return str(self.value)
