from enum import StrEnum


class DecideApprovalResponse409Code(StrEnum):
    APPROVAL_ALREADY_DECIDED = "APPROVAL_ALREADY_DECIDED"
    APPROVAL_ORPHANED = "APPROVAL_ORPHANED"

    def __str__(self) -> str:
        return str(self.value)
