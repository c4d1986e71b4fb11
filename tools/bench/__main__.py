"""``python -m tools.bench``: see :mod:`tools.bench.run`."""

from tools.bench.run import main

raise SystemExit(main())
