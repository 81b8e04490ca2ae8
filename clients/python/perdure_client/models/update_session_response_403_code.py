from enum import StrEnum


class UpdateSessionResponse403Code(StrEnum):
    FORBIDDEN = "FORBIDDEN"

    def __str__(self) -> str:
        return str(self.value)
