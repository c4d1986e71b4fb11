"""Session persistence, resume and fork, compaction, execution journal."""

__all__: list[str] = []
