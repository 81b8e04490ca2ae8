from enum import StrEnum


class ListWebhookDeliveriesStatusType0(StrEnum):
    DELIVERED = "delivered"
    FAILED = "failed"
    PENDING = "pending"

    def __str__(self) -> str:
        return str(self.value)
