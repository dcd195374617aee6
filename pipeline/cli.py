"""`python -m pipeline.cli` keeps working: the command line lives in pipeline/commands/cli.py."""

import sys

from pipeline.commands.cli import main

if __name__ == "__main__":
    sys.exit(main())
