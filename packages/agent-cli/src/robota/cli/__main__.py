"""``python -m robota.cli``."""

from robota.cli.main import main

raise SystemExit(main())
