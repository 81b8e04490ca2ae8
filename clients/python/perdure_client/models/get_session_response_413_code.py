from enum import StrEnum


class GetSessionResponse413Code(StrEnum):
    PAYLOAD_TOO_LARGE = "PAYLOAD_TOO_LARGE"

    def __str__(self) -> str:
        return str(self.value)
