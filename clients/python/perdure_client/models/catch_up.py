from enum import StrEnum


class CatchUp(StrEnum):
    ALL = "all"
    LATEST = "latest"

    def __str__(self) -> str:
        return str(self.value)
