"""`python -m benchmarks.effectiveness`: run the benchmark (see `cli`)."""

import sys

from benchmarks.effectiveness.cli import main

sys.exit(main())
