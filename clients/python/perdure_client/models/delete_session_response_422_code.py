from enum import StrEnum


class DeleteSessionResponse422Code(StrEnum):
    SESSION_ID_INVALID = "SESSION_ID_INVALID"
    VALIDATION_FAILED = "VALIDATION_FAILED"

    def __str__(self) -> str:
        return str(self.value)
