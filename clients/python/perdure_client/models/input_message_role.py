from enum import StrEnum


class InputMessageRole(StrEnum):
    SYSTEM = "system"
    USER = "user"

    def __str__(self) -> str:
        return str(self.value)
