from enum import StrEnum


class SendMessageResponse422Code(StrEnum):
    IDEMPOTENCY_KEY_REUSED = "IDEMPOTENCY_KEY_REUSED"
    SESSION_ID_INVALID = "SESSION_ID_INVALID"
    VALIDATION_FAILED = "VALIDATION_FAILED"

    def __str__(self) -> str:
        return str(self.value)
