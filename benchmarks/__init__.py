"""Benchmarks: scripts run by hand (`python -m benchmarks.NAME`), never collected as tests."""
