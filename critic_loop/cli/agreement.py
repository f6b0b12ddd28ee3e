"""How well the critic agrees with human labels: a 2x2 table and its figures (docs/commands.md)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import product
from typing import Any

RATES = ("kappa", "false_pass_rate", "false_fail_rate")
COUNTS = ("both_pass", "both_fail", "false_pass", "false_fail")
MARGINS = ("human_pass", "human_fail", "critic_pass", "critic_fail")


def _rate(part: int, whole: int) -> float | None:
    return part / whole if whole else None


@dataclass(frozen=True)
class Agreement:
    """The 2x2 table of human labels against critic decisions."""

    both_pass: int = 0
    false_fail: int = 0
    false_pass: int = 0
    both_fail: int = 0

    @classmethod
    def of(cls, pairs: Iterable[tuple[bool, bool]]) -> Agreement:
        """Count (human, critic) decision pairs into a table."""
        counts = Counter((bool(human), bool(critic)) for human, critic in pairs)
        return cls(*(counts[human, critic] for human, critic in product((True, False), repeat=2)))

    @property
    def n(self) -> int:
        return self.both_pass + self.false_fail + self.false_pass + self.both_fail

    @property
    def human_pass(self) -> int:
        return self.both_pass + self.false_fail

    @property
    def critic_pass(self) -> int:
        return self.both_pass + self.false_pass

    @property
    def human_fail(self) -> int:
        return self.n - self.human_pass

    @property
    def critic_fail(self) -> int:
        return self.n - self.critic_pass

    @property
    def accuracy(self) -> float | None:
        return _rate(self.both_pass + self.both_fail, self.n)

    @property
    def kappa(self) -> float | None:
        if not self.n:
            return None
        observed = (self.both_pass + self.both_fail) / self.n
        chance = (
            self.human_pass * self.critic_pass + self.human_fail * self.critic_fail
        ) / self.n**2
        return None if chance >= 1.0 else (observed - chance) / (1.0 - chance)

    @property
    def false_pass_rate(self) -> float | None:
        return _rate(self.false_pass, self.human_fail)

    @property
    def false_fail_rate(self) -> float | None:
        return _rate(self.false_fail, self.human_pass)

    def as_json(self) -> dict[str, Any]:
        """Return the table and its figures as JSON-ready data."""
        figures = {name: getattr(self, name) for name in (*RATES, *COUNTS, *MARGINS)}
        return {"n": self.n, "agreement": self.accuracy, **figures}
