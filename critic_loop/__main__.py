"""Run the command line with `python -m critic_loop`."""

from critic_loop.cli import entry

entry()
