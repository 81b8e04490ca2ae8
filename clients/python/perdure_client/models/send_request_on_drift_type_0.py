from enum import StrEnum


class SendRequestOnDriftType0(StrEnum):
    ERROR = "error"
    IGNORE = "ignore"
    WARN = "warn"

    def __str__(self) -> str:
        return str(self.value)
