"""Run critic-loop on Temporal: durable runs whose nodes run as activities on many workers.

Temporal's LangGraph plugin (a preview; the `temporal` extra). docs/deploying.md says
how to deploy it, and what the plugin cannot do yet.
"""

from critic_loop.temporal.client import TemporalRunFailed, connect, run_on_temporal, start_run
from critic_loop.temporal.settings import TemporalSettings

__all__ = ["TemporalRunFailed", "TemporalSettings", "connect", "run_on_temporal", "start_run"]
