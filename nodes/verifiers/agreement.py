"""Agreement among candidates that pass the visible checks: which behaviour do most share?

As in AlphaCode / CodeT / MBR-exec: `probe_inputs` varies the literal arguments of the tests'
calls and of the calls the drafts document, and two candidates run on them in the `tests`
sandbox agree when their results do. It only ranks.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from critic_loop.nodes.operator_policy import OPERATOR, Trust, runnable_suite
from critic_loop.nodes.verifiers.checks import arun_check
from critic_loop.nodes.verifiers.checks.structured import extract_code
from critic_loop.nodes.verifiers.checks.test_suite import sandbox_for
from critic_loop.nodes.verifiers.derived_inputs import MAX_LITERAL_CHARS, documented_calls
from critic_loop.sandbox import IsolationUnavailable
from critic_loop.sandbox.runner import run_to_end
from critic_loop.state.rubric import CriterionBase, PythonSyntax, TestSuite
from critic_loop.state.verdict import CheckResult

MAX_PROBES = 32
THIN_CALLS = 3  # inline tests making fewer distinct calls are thin evidence
_SUITE = TestSuite(id="derived_inputs", kind="tests", tests="# the drafts' own calls\n")
DERIVED_INPUTS = TestSuite.model_construct(  # its 20 s not asked for: a ceiling lowers it
    {"id", "kind", "tests"}, **{**_SUITE.model_dump(), "timeout_seconds": 20}
)
"""How candidates checked for syntax only are run on the inputs their drafts give."""
_SMALL = 10**6  # larger integers are not doubled (the inputs stay cheap to run)


@dataclass(frozen=True)
class Probe:
    """One call to make: a function the tests import, with literal arguments."""

    function: str
    args: tuple[Any, ...]
    kwargs: tuple[tuple[str, Any], ...] = ()

    def source(self) -> str:
        """Return the call's data as a Python literal: (name, args, kwargs)."""
        return repr((self.function, self.args, dict(self.kwargs)))


def _imported_functions(tree: ast.Module, module: str) -> tuple[set[str], set[str]]:
    """Return the names imported from `module`, and the names `module` itself is bound to."""
    names: set[str] = set()
    aliases: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == module and node.level == 0:
            names |= {alias.asname or alias.name for alias in node.names if alias.name != "*"}
        elif isinstance(node, ast.Import):
            aliases |= {alias.asname or alias.name for alias in node.names if alias.name == module}
    return names, aliases


def _called_name(call: ast.Call, names: set[str], aliases: set[str]) -> str | None:
    function = call.func
    if isinstance(function, ast.Name) and function.id in names:
        return function.id
    if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name):
        return function.attr if function.value.id in aliases else None
    return None


def _round_trips(value: Any) -> bool:
    try:
        return bool(ast.literal_eval(repr(value)) == value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False


def _visible_calls(tests: str, module: str) -> list[Probe]:
    try:
        tree = ast.parse(tests)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    names, aliases = _imported_functions(tree, module)
    found: list[Probe] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or any(k.arg is None for k in node.keywords):
            continue
        name = _called_name(node, names, aliases)
        if name is None or len(ast.unparse(node)) > MAX_LITERAL_CHARS:
            continue
        try:  # a starred argument is no literal either
            args = tuple(ast.literal_eval(arg) for arg in node.args)
            kwargs = tuple((str(k.arg), ast.literal_eval(k.value)) for k in node.keywords)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        if _round_trips(args) and _round_trips(kwargs):  # no NaN, no infinity
            found.append(Probe(name, args, kwargs))
    return list({call.source(): call for call in reversed(found)}.values())[::-1]


def _int_variants(value: int) -> list[Any]:
    doubled = [2 * value] if abs(value) < _SMALL else []
    return [value + 1, value - 1, 0, -value, value * 10 + 1, 1, *doubled, value // 2, value + 100]


def _sequence_variants(value: list[Any] | tuple[Any, ...]) -> list[Any]:
    kind = type(value)
    items = list(value)
    variants = [items[:0], items[:1], items[::-1]]
    if items:
        if all(isinstance(item, int | float) and not isinstance(item, bool) for item in items):
            variants.append([-item for item in items])
        variants.append([items[0], *items])
    variants += [items[1:], items + items[-1:], items[:-1]]
    with contextlib.suppress(TypeError):  # items that do not compare stay unsorted
        variants.append(sorted(items))
    if items:
        variants += [[changed, *items[1:]] for changed in variants_of(items[0])[:2]]
    return [kind(variant) for variant in variants]


def _text_variants(value: str) -> list[Any]:
    return [
        "",
        value[:1],
        value[::-1],
        value.upper(),
        " " + value,
        value + value,
        value[1:],
        value.lower(),
        value[:-1],
        value + " ",
        value + value[-1:],
    ]


def variants_of(value: Any) -> list[Any]:
    """Return values of the same type near `value` (possibly repeating it)."""
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return _int_variants(value)
    if isinstance(value, float):
        return [value + 1.0, -value, 0.0, value / 2]
    if isinstance(value, str):
        return _text_variants(value)
    if isinstance(value, list | tuple):
        return _sequence_variants(value)
    if isinstance(value, dict):
        keys = list(value)
        return [{}, {key: value[key] for key in keys[:-1]}, {key: value[key] for key in keys[1:]}]
    return []


def _swapped(items: tuple[Any, ...], position: int, value: Any) -> tuple[Any, ...]:
    return (*items[:position], value, *items[position + 1 :])


def _varied(call: Probe) -> Iterator[Probe]:
    """Yield `call` with one argument at a time replaced by a nearby value, arguments in turn."""
    per_argument = [
        [replace(call, args=_swapped(call.args, at, v)) for v in variants_of(argument)]
        for at, argument in enumerate(call.args)
    ]
    per_argument += [
        [replace(call, kwargs=_swapped(call.kwargs, at, (key, v))) for v in variants_of(argument)]
        for at, (key, argument) in enumerate(call.kwargs)
    ]
    for turn in itertools.zip_longest(*per_argument):
        yield from (probe for probe in turn if probe is not None)


def thin_evidence(rubric: Sequence[CriterionBase]) -> str | None:
    """Say why the rubric's checks of code are thin (None: they are not, or there is no code)."""
    suites = [c for c in rubric if isinstance(c, TestSuite)]
    if not suites:
        return "no tests" if any(isinstance(c, PythonSyntax) for c in rubric) else None
    if any(suite.tests is None for suite in suites):  # a file: a suite someone wrote
        return None
    calls = sum(len(_visible_calls(suite.tests or "", suite.module)) for suite in suites)
    return f"{calls} test call(s)" if calls < THIN_CALLS else None


def probe_inputs(criterion: TestSuite, drafts: Sequence[str] = ()) -> list[Probe]:
    """Return up to `MAX_PROBES` further calls, varied from the suite's and the drafts' own."""
    calls = _visible_calls(criterion.tests or "", criterion.module)
    seen = {call.source() for call in calls}
    documented = [Probe(name, args) for name, args in documented_calls(drafts)]
    calls += documented
    chosen: list[Probe] = []
    # the drafts' own calls, then one variant of each call in turn, so every example contributes
    for probe in itertools.chain(
        documented,
        itertools.chain.from_iterable(itertools.zip_longest(*(_varied(call) for call in calls))),
    ):
        if probe is None or len(chosen) >= MAX_PROBES:
            continue
        text = probe.source()
        if text not in seen and len(text) <= MAX_LITERAL_CHARS and _round_trips(probe.args):
            seen.add(text)
            chosen.append(probe)
    return chosen


BEHAVIOUR_MODULE = '''\
import copy
import hashlib

SOURCES = {sources}
PROBES = {probes}
_loaded = {{}}


def _canonical(value, depth=0):
    if depth > 50:
        return "..."
    if isinstance(value, (set, frozenset)):
        inner = sorted(_canonical(item, depth + 1) for item in value)
        return type(value).__name__ + "{{" + ",".join(inner) + "}}"
    if isinstance(value, dict):
        inner = sorted(
            _canonical(key, depth + 1) + ":" + _canonical(item, depth + 1)
            for key, item in value.items()
        )
        return "dict{{" + ",".join(inner) + "}}"
    if isinstance(value, (list, tuple)):
        return type(value).__name__ + "[" + ",".join(_canonical(v, depth + 1) for v in value) + "]"
    if isinstance(value, float):
        return "float:" + repr(round(value, 9))
    return type(value).__name__ + ":" + repr(value)


def _candidate(number):
    if number not in _loaded:
        namespace = {{"__name__": "candidate_%d" % number}}
        try:
            exec(compile(SOURCES[number], "candidate_%d.py" % number, "exec"), namespace)
        except Exception:
            namespace = None
        _loaded[number] = namespace
    return _loaded[number]


def behaviour(number, index):
    """A short fingerprint of what candidate `number` does on probe `index`."""
    namespace = _candidate(number)
    name, args, kwargs = PROBES[index]
    function = None if namespace is None else namespace.get(name)
    if not callable(function):
        return "missing"
    try:
        value = function(*copy.deepcopy(args), **copy.deepcopy(kwargs))
        text = _canonical(value)
    except Exception:
        return "raised"
    return "returned:" + hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:16]
'''

PAIR_TEST = """\
import pytest

from {module} import behaviour


@pytest.mark.parametrize("index", range({count}))
def test_same_behaviour(index):
    assert behaviour(0, index) == behaviour(1, index)
"""
FAILED = re.compile(r"(\d+) of \d+ tests failed")  # the sandbox's evidence on a failing suite
SAME_SHARE = 0.8  # candidates agreeing on this share of the inputs behave the same
"""(Correct drafts can differ on inputs the task rules out, such as a negative count.)"""


def _agreed(outcome: CheckResult, probes: int) -> int:
    """Return on how many of the `probes` inputs the pair behaved the same."""
    failed = FAILED.match(outcome.evidence)
    return probes if outcome.passed else probes - int(failed.group(1)) if failed else 0


def _pair_check(
    criterion: TestSuite, probes: Sequence[Probe], left: str, right: str
) -> tuple[TestSuite, str]:  # a suite and module that pass if `left` and `right` agree
    tests = PAIR_TEST.format(module=criterion.module, count=len(probes))
    suite = criterion.model_copy(update={"tests": tests, "tests_file": None})
    sources = [extract_code(left), extract_code(right)]
    listed = "[\n" + "".join(f"    {probe.source()},\n" for probe in probes) + "]"
    return suite, BEHAVIOUR_MODULE.format(sources=repr(sources), probes=listed)


@dataclass(frozen=True)
class Grouping:
    """The candidates grouped by behaviour on the probes."""

    probes: int  # how many further inputs they were run on
    group: list[int]  # each candidate's group: the index of the group's first candidate

    def support(self, index: int, copies: Sequence[int] = ()) -> int:
        """How many candidates behave like `index`, counting `copies[i]` more texts of each i."""
        extra = dict(enumerate(copies))
        shared = [i for i, group in enumerate(self.group) if group == self.group[index]]
        return sum(1 + extra.get(i, 0) for i in shared)


def behaviour_groups(
    criterion: TestSuite, drafts: Sequence[str], trust: Trust = OPERATOR
) -> Grouping | None:
    """Group `drafts` by their behaviour on `criterion`'s further inputs (None: it gives none)."""
    return run_to_end(abehaviour_groups(criterion, drafts, trust))


async def abehaviour_groups(
    criterion: TestSuite, drafts: Sequence[str], trust: Trust = OPERATOR
) -> Grouping | None:
    """`behaviour_groups` without blocking the event loop (the runs one after another)."""
    if criterion is DERIVED_INPUTS:  # a rubric that runs no code: compare only where code may run
        try:
            await asyncio.to_thread(sandbox_for, trust)
        except IsolationUnavailable:
            return None
    criterion = await asyncio.to_thread(runnable_suite, criterion, trust)
    probes = probe_inputs(criterion, drafts)
    if not probes:
        return None
    group: list[int] = []
    for index, draft in enumerate(drafts):
        found = index
        for lead in dict.fromkeys(group):
            pair = _pair_check(criterion, probes, drafts[lead], draft)
            if _agreed(await arun_check(*pair, trust), len(probes)) >= SAME_SHARE * len(probes):
                found = lead
                break
        group.append(found)
    return Grouping(len(probes), group)
