"""Figure 6: prompt growth over a run: the worker's and the critic's prompt at round N / round 2.

One critic-loop run in memory of `growth_rounds` rounds against an in-process scripted
server that keeps every request. Every draft has the same length and every failing
verdict the same feedback, so any growth comes from what critic-loop re-sends. The size
is the characters of the request's messages as JSON (tokens are about a quarter of it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.performance.report import Figure
from benchmarks.performance.server import LatencyServer, LoopResponder, prompt_sizes
from benchmarks.performance.settings import Settings
from benchmarks.performance.systems import CriticLoopMemory, PlainLoop


def sizes_by_round(loop: Any, rounds: int, server: LatencyServer) -> dict[str, list[int]]:
    """Run one loop; return the worker's and critic's prompt characters, by round."""
    before_plain = len(server.plain_requests())
    before_structured = len(server.structured_requests())
    made = loop.run("growth" + type(loop).__name__, rounds)
    if made != rounds:
        raise RuntimeError(f"{type(loop).__name__} made {made} rounds, not {rounds}")
    worker = server.plain_requests()[before_plain:]
    critic = server.structured_requests()[before_structured:]
    return {
        "worker": [prompt_sizes(request)["characters"] for request in worker],
        "critic": [prompt_sizes(request)["characters"] for request in critic],
    }


def prompt_growth(settings: Settings, workdir: Path, details: dict[str, Any]) -> list[Figure]:
    """Figure 6: worker and critic prompt size at the last round over round 2."""
    rounds = max(2, settings.growth_rounds)
    with LatencyServer(LoopResponder()) as server:
        critic_loop = sizes_by_round(CriticLoopMemory(server.base_url), rounds, server)
        plain = sizes_by_round(PlainLoop(server.base_url), rounds, server)
    details["growth"] = {"critic-loop": critic_loop, "plain loop": plain}
    figures = []
    for role, target, baseline in (
        ("worker", 1.10, "worker prompt at round 2"),
        ("critic", 1.10, "critic prompt at round 2"),
    ):
        sizes = critic_loop[role]
        figures.append(
            Figure(
                "growth",
                f"{role} prompt, round {rounds} / round 2",
                sizes[rounds - 1] / sizes[1],
                "x",
                baseline,
                target,
                samples={"critic-loop": [float(size) for size in sizes]},
                medians={"round 2": sizes[1], f"round {rounds}": sizes[rounds - 1]},
                notes=[
                    f"{sizes[1]} -> {sizes[rounds - 1]} characters "
                    f"(~{sizes[1] // 4} -> ~{sizes[rounds - 1] // 4} tokens)"
                ],
            )
        )
    return figures
