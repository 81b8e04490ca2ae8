from enum import StrEnum


class DeleteWebhookResponse404Code(StrEnum):
    NOT_FOUND = "NOT_FOUND"

    def __str__(self) -> str:
        return str(self.value)
