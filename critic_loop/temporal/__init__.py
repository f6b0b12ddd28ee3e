"""Run critic-loop on Temporal's LangGraph plugin (a preview; docs/deploying.md)."""

from critic_loop.temporal.client import TemporalRunFailed, connect, run_on_temporal, start_run
from critic_loop.temporal.settings import TemporalSettings

__all__ = ["TemporalRunFailed", "TemporalSettings", "connect", "run_on_temporal", "start_run"]
