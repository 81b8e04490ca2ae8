from enum import StrEnum


class CreateWebhookResponse422Code(StrEnum):
    VALIDATION_FAILED = "VALIDATION_FAILED"
    WEBHOOK_URL_REFUSED = "WEBHOOK_URL_REFUSED"

    def __str__(self) -> str:
        return str(self.value)
