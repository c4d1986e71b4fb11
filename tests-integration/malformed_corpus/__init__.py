"""The malformed-response corpus for ``test_malformed_corpus.py`` (issue #14): recorded vendor
traffic cut at every event boundary and inside events and UTF-8 sequences, plus hand-made
broken-server shapes, each fed to the real adapters through an injected ``httpx`` client."""

from malformed_corpus.model import Answer, Case, Expect, Result, judge
from malformed_corpus.recordings import cassette_root, discover
from malformed_corpus.runner import CorpusRun, run_corpus
from malformed_corpus.shapes import shape_cases

__all__ = [
    "Answer",
    "Case",
    "CorpusRun",
    "Expect",
    "Result",
    "cassette_root",
    "discover",
    "judge",
    "run_corpus",
    "shape_cases",
]
