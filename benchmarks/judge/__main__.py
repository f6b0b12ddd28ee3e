"""`python -m benchmarks.judge`: run the judge benchmark (see `cli`)."""

import sys

from benchmarks.judge.cli import main

sys.exit(main())
