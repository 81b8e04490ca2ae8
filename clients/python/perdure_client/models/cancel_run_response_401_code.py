from enum import StrEnum


class CancelRunResponse401Code(StrEnum):
    UNAUTHORIZED = "UNAUTHORIZED"

    def __str__(self) -> str:
        return str(self.value)
