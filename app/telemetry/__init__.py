"""What operators watch: Prometheus metrics, log lines and OpenTelemetry traces.

Below every layer that reports (API, worker, engine, tools): it imports nothing of the
app, so any of them may count or trace without pulling in another.
"""
