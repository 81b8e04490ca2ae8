"""Workers: claim runs, keep their leases, drive the engine, write through the store."""
