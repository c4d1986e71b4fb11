"""``robota-agent-plugin[otel]`` and ``[prices]``: robota.plugins works with neither installed;
the telemetry sink and the price function name their extra when it is missing (issue 16)."""

from __future__ import annotations

import textwrap
from importlib.metadata import metadata, requires

from robota.core.testing.extras import run_without

OTEL = (
    "'opentelemetry' is not installed; robota-agent-plugin needs its 'otel' extra for this: "
    'pip install "robota-agent-plugin[otel]"'
)
PRICES = (
    "'genai_prices' is not installed; robota-agent-plugin needs its 'prices' extra for this: "
    'pip install "robota-agent-plugin[prices]"'
)

# The package's own smoke scenario: a token budget enforced without any extra.
BUDGET = """
from robota.core import Agent
from robota.core.testing.scripted import ScriptedProvider, text, usage
from robota.plugins import BudgetedProvider, UsageBudget

provider = ScriptedProvider([[text("done"), usage(input_tokens=900, output_tokens=200)]])
budget = UsageBudget(max_total_tokens=1000)
agent = Agent(BudgetedProvider(provider, budget), gates=[budget], sinks=[budget])
print(agent.run_sync("go").text, budget.exceeded_limits)
"""

TRY = """
for statement in STATEMENTS:
    try:
        exec(statement)
        print("ok", statement)
    except ImportError as error:
        print(type(error).__name__, "|", error)
"""


def run_hidden(hidden: set[str], statements: list[str]) -> list[str]:
    program = f"STATEMENTS = {statements!r}\n{textwrap.dedent(BUDGET)}\n{textwrap.dedent(TRY)}"
    done = run_without(hidden, program)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_otel_and_prices_are_extras_not_requirements() -> None:
    assert {"otel", "prices"} <= set(
        metadata("robota-agent-plugin").get_all("Provides-Extra") or []
    )
    unconditional = [r for r in requires("robota-agent-plugin") or [] if "extra ==" not in r]
    assert not [r for r in unconditional if r.startswith(("opentelemetry", "genai-prices"))]


def test_with_neither_extra_the_plugins_work_and_each_part_names_its_extra() -> None:
    out = run_hidden(
        {"opentelemetry", "genai_prices"},
        [
            "from robota.plugins import OpenTelemetrySink",
            "import robota.plugins.telemetry",
            "from robota.plugins import genai_price",
            "import robota.plugins.pricing",
        ],
    )
    assert out == [
        "done ('total_tokens',)",
        f"MissingExtraError | {OTEL}",
        f"MissingExtraError | {OTEL}",
        f"MissingExtraError | {PRICES}",
        f"MissingExtraError | {PRICES}",
    ]


def test_each_extra_works_without_the_other() -> None:
    assert run_hidden({"genai_prices"}, ["from robota.plugins import OpenTelemetrySink"]) == [
        "done ('total_tokens',)",
        "ok from robota.plugins import OpenTelemetrySink",
    ]
    assert run_hidden({"opentelemetry"}, ["from robota.plugins import genai_price"]) == [
        "done ('total_tokens',)",
        "ok from robota.plugins import genai_price",
    ]
