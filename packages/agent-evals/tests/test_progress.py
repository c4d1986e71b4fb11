"""The run's progress bar: drawn on a terminal (or when asked), never when turned off."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from robota.evals.case import Case
from robota.evals.dataset import Dataset
from robota.evals.run.progress import RunProgress, shows_progress


def _console(*, terminal: bool) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=terminal, width=80), out


def test_the_bar_advances_per_completed_case_repetition() -> None:
    console, out = _console(terminal=True)

    with RunProgress(True, total=3, description="nightly", console=console) as bar:
        for _ in range(3):
            bar.advance()

    assert bar.shown
    assert bar.completed == 3
    drawn = out.getvalue()
    assert "nightly" in drawn
    assert "3/3" in drawn


@pytest.mark.parametrize(
    ("progress", "terminal", "shown"),
    [
        (None, True, True),
        (None, False, False),
        (True, False, True),
        (False, True, False),
    ],
)
def test_the_bar_is_shown_on_a_terminal_or_when_asked(
    progress: bool | None, terminal: bool, shown: bool
) -> None:
    console, out = _console(terminal=terminal)

    assert shows_progress(progress, console) is shown
    with RunProgress(progress, total=1, description="run", console=console) as bar:
        bar.advance()

    assert bar.shown is shown
    assert ("1/1" in out.getvalue()) is shown


@pytest.mark.anyio
async def test_a_run_with_progress_off_writes_nothing_to_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    async def echo(inputs: str) -> str:
        return inputs

    dataset = Dataset(name="quiet", cases=[Case(name="x", inputs="hi")])
    await dataset.evaluate(echo, progress=False)

    assert capsys.readouterr().err == ""


@pytest.mark.anyio
async def test_a_run_with_progress_on_draws_the_bar_on_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    async def echo(inputs: str) -> str:
        return inputs

    dataset = Dataset(name="loud", cases=[Case(name=f"c{i}", inputs="hi") for i in range(2)])
    await dataset.evaluate(echo, repetitions=2, progress=True)

    captured = capsys.readouterr()
    assert "loud" in captured.err
    assert "4/4" in captured.err
    assert captured.out == ""
