from enum import StrEnum


class UpdateRunResponse401Code(StrEnum):
    UNAUTHORIZED = "UNAUTHORIZED"

    def __str__(self) -> str:
        return str(self.value)
