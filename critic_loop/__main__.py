"""Run the command line with `python -m critic_loop`."""

import sys

from critic_loop.cli import main

sys.exit(main())
