"""`python -m gdnkit ...` (same as the `gdnkit` console script, for machines without the install)."""

import sys

from .cli import main

sys.exit(main())
