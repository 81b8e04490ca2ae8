from enum import StrEnum


class ListRunsResponse401Code(StrEnum):
    UNAUTHORIZED = "UNAUTHORIZED"

    def __str__(self) -> str:
        return str(self.value)
