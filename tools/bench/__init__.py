"""Robota's overhead benchmark (run with ``python -m tools.bench``; see :mod:`tools.bench.run`)."""
