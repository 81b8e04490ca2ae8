"""The agent loop. Knows no SQL and no HTTP: it is handed a journal, a model and tools."""
