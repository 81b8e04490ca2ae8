from enum import StrEnum


class ApprovalOutStatus(StrEnum):
    APPROVED = "approved"
    EXPIRED = "expired"
    ORPHANED = "orphaned"
    PENDING = "pending"
    REJECTED = "rejected"

    def __str__(self) -> str:
        return str(self.value)
