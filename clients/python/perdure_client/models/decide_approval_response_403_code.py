from enum import StrEnum


class DecideApprovalResponse403Code(StrEnum):
    FORBIDDEN = "FORBIDDEN"
    SELF_APPROVAL = "SELF_APPROVAL"

    def __str__(self) -> str:
        return str(self.value)
