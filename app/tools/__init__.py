"""Tool executors: where a call's side effect happens."""
