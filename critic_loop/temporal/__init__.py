"""Run critic-loop on Temporal: durable runs whose nodes run as activities on many workers.

It uses Temporal's official LangGraph plugin (`temporalio.langgraph`, a preview): the
graph's loop runs in a Temporal workflow, every node that does I/O (model calls, checks,
the test sandbox, the rule store) runs as an activity on whichever worker takes it, and a
run's progress is Temporal's event history, so a run survives the loss of any worker.
It needs the `temporal` extra (from a clone `pip install -e '.[temporal]'`, else
`pip install 'critic-loop[temporal]'`).

- `critic-loop worker --temporal HOST:PORT` (or `worker.serve`) runs a worker;
- `client.start_run` starts a run and returns its handle, `client.run_on_temporal`
  starts one and returns its final state, like `critic_loop.run_loop`.

docs/deploying.md says how to deploy it, and what the plugin cannot do yet.
"""

from critic_loop.temporal.client import TemporalRunFailed, connect, run_on_temporal, start_run
from critic_loop.temporal.settings import TemporalSettings

__all__ = ["TemporalRunFailed", "TemporalSettings", "connect", "run_on_temporal", "start_run"]
