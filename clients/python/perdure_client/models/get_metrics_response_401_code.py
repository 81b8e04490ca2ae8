from enum import StrEnum


class GetMetricsResponse401Code(StrEnum):
    UNAUTHORIZED = "UNAUTHORIZED"

    def __str__(self) -> str:
        return str(self.value)
