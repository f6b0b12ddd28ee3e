"""How well the critic agrees with human labels: a 2x2 table per criterion, and its figures.

Agreement, Cohen's kappa (None when chance agreement is 1: both raters gave every pair one
label), the false-pass rate (of what humans failed, the share the critic passed: a loop
stops on it) and the false-fail rate (of what humans passed, the share the critic failed).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


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
        counts = {(True, True): 0, (True, False): 0, (False, True): 0, (False, False): 0}
        for human, critic in pairs:
            counts[(bool(human), bool(critic))] += 1
        return cls(
            both_pass=counts[(True, True)],
            false_fail=counts[(True, False)],
            false_pass=counts[(False, True)],
            both_fail=counts[(False, False)],
        )

    @property
    def n(self) -> int:
        return self.both_pass + self.false_fail + self.false_pass + self.both_fail

    @property
    def human_pass(self) -> int:
        return self.both_pass + self.false_fail

    @property
    def human_fail(self) -> int:
        return self.false_pass + self.both_fail

    @property
    def critic_pass(self) -> int:
        return self.both_pass + self.false_pass

    @property
    def critic_fail(self) -> int:
        return self.false_fail + self.both_fail

    @property
    def accuracy(self) -> float | None:
        return (self.both_pass + self.both_fail) / self.n if self.n else None

    @property
    def kappa(self) -> float | None:
        if not self.n:
            return None
        observed = (self.both_pass + self.both_fail) / self.n
        chance = (
            self.human_pass * self.critic_pass + self.human_fail * self.critic_fail
        ) / self.n**2
        if chance >= 1.0:
            return None
        return (observed - chance) / (1.0 - chance)

    @property
    def false_pass_rate(self) -> float | None:
        return self.false_pass / self.human_fail if self.human_fail else None

    @property
    def false_fail_rate(self) -> float | None:
        return self.false_fail / self.human_pass if self.human_pass else None

    def as_json(self) -> dict[str, Any]:
        """Return the table and its figures as JSON-ready data."""
        return {
            "n": self.n,
            "agreement": self.accuracy,
            "kappa": self.kappa,
            "false_pass_rate": self.false_pass_rate,
            "false_fail_rate": self.false_fail_rate,
            "both_pass": self.both_pass,
            "both_fail": self.both_fail,
            "false_pass": self.false_pass,
            "false_fail": self.false_fail,
            "human_pass": self.human_pass,
            "human_fail": self.human_fail,
            "critic_pass": self.critic_pass,
            "critic_fail": self.critic_fail,
        }
