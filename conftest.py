"""Repository-wide pytest hooks: the suite's summary lines (cassette, corpus, kill-test and
bench counts printed by individual tests) are collected from captured output and shown at the
end of every run, so CI logs carry the figures without ``-s``."""

from __future__ import annotations

import re

import pytest

_SUMMARY = re.compile(
    r"^(cassettes|sandbox|corpus|shell corpus|shell redteam|fs redteam|store redteam|trust redteam|residency|kill test|bench|malformed)(\([^)]*\))?: .*$",
    re.M,
)
_lines: list[str] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when != "call":
        return
    for match in _SUMMARY.finditer(report.capstdout):
        line = match.group(0)
        if line not in _lines:
            _lines.append(line)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _lines:
        terminalreporter.section("robota figures")
        for line in _lines:
            terminalreporter.write_line(line)
