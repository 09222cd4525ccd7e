"""``python -m arena_cli`` is the same as ``arena``."""

import sys

from arena_cli.main import main

sys.exit(main())
