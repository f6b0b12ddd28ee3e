"""`python -m benchmarks.memory`: run the benchmark (see `cli`)."""

import sys

from benchmarks.memory.cli import main

sys.exit(main())
