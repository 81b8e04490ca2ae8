from enum import StrEnum


class GetApprovalResponse422Code(StrEnum):
    VALIDATION_FAILED = "VALIDATION_FAILED"

    def __str__(self) -> str:
        return str(self.value)
