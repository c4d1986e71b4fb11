"""``robota eval run`` and ``robota eval compare`` (the ``evals`` extra:
``pip install "robota-agent-cli[evals]"``).

Importing this package does not import ``robota.evals``; only running an ``eval`` command does.
"""

from robota.cli.evals.commands import EVAL_EPILOG, add_eval_parser, require_evals, run_eval

__all__ = ["EVAL_EPILOG", "add_eval_parser", "require_evals", "run_eval"]
