"""`python -m pipeline ...` is `kpipe ...` (for hosts where the project is not installed)."""

import sys

from pipeline.commands.cli import main

sys.exit(main())
