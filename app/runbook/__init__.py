"""The runbook commands (`perdure runs|approvals|sessions …`): an HTTP client of the API,
as an operator's curl is. It imports nothing of the store, the engine or the worker."""
