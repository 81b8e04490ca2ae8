from enum import StrEnum


class GetMetricsResponse403Code(StrEnum):
    FORBIDDEN = "FORBIDDEN"

    def __str__(self) -> str:
        return str(self.value)
