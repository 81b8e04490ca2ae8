from enum import StrEnum


class BudgetExceededScope(StrEnum):
    RUN = "run"
    SESSION = "session"

    def __str__(self) -> str:
        return str(self.value)
