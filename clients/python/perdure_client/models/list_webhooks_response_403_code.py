from enum import StrEnum


class ListWebhooksResponse403Code(StrEnum):
    FORBIDDEN = "FORBIDDEN"

    def __str__(self) -> str:
        return str(self.value)
