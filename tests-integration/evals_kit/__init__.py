"""Shared helpers of the ``test_evals_*.py`` integration tests."""
