"""Pure types and rules. Imports nothing else from `app`."""
