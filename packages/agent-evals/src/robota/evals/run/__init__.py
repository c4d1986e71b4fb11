"""Running a dataset: the runner, retries, lifecycle events, span capture, progress."""
