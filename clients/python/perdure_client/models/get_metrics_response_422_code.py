from enum import StrEnum


class GetMetricsResponse422Code(StrEnum):
    VALIDATION_FAILED = "VALIDATION_FAILED"

    def __str__(self) -> str:
        return str(self.value)
