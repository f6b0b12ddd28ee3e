"""Validate the effectiveness benchmark's task set.

Run from the repository root, with the project's virtualenv (it has pytest, jsonschema and
critic_loop):

    .venv/bin/python -m benchmarks.effectiveness.validate [--no-naive] [--jobs N] [--dir D]

Coding tasks (coding.jsonl):
  - fields, ids, difficulty, prompt wording;
  - visible tests: 2-4 test functions, each a single `assert <call> == <expected>`, and every
    call and expected value appears literally in the prompt (the visible tests are the
    prompt's examples);
  - hidden tests: 5-10 test functions, none named like a visible test (the grader runs both
    modules as one);
  - the reference passes both modules under pytest (run in a subprocess, in a temporary
    directory, as solution.py), and each module runs in well under a second;
  - if naive_solutions.json exists: each deliberately naive solution fails at least one test
    (reported: how many visible / hidden tests catch it).
Writing tasks (writing.jsonl):
  - rubric format (only the allowed kinds and field names, 3-5 criteria, unique ids, patterns
    compile, schemas are valid JSON Schema);
  - the reference passes every criterion, the bad example fails at least one;
  - fairness heuristics: required phrases, headings and count bounds are stated in the prompt;
  - critic_loop accepts every rubric and its own checks agree with this validator's.

Prints a summary and exits non-zero on any failure.
"""

# ruff: noqa: T201 - a command-line tool: its job is to print the summary

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import jsonschema
from pydantic import TypeAdapter

from critic_loop.nodes.verifiers.checks import run_check
from critic_loop.state.rubric import Rubric

TASKS_DIR = Path(__file__).resolve().parent / "tasks"
"""Where the task files live."""

PYTHON = sys.executable
MODULE_SECONDS = 1.0
"""Time budget per test module for the reference."""

RUN_TIMEOUT = 60
"""Wall-clock limit for one pytest run, in seconds."""

WORD = re.compile(r"\w+(?:['’-]\w+)*")
HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
ID_PATTERN = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")

CODING_FIELDS = {
    "id",
    "prompt",
    "entry_point",
    "visible_tests",
    "hidden_tests",
    "reference",
    "difficulty",
}
WRITING_FIELDS = {"id", "prompt", "rubric", "reference", "bad_example"}

Problems = list[str]
"""What failed, one message each; the validation passes when it stays empty."""

# --------------------------------------------------------------------------- coding tasks


def test_functions(source: str) -> list[ast.FunctionDef]:
    """Return the top-level `test*` functions of a test module."""
    tree = ast.parse(source)
    return [
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test")
    ]


def imports_entry(source: str, entry: str) -> bool:
    """Tell whether a test module does `from solution import <entry>`."""
    tree = ast.parse(source)
    return any(
        isinstance(node, ast.ImportFrom)
        and node.module == "solution"
        and any(alias.name == entry for alias in node.names)
        for node in tree.body
    )


def _check_visible_examples(
    tid: str, source: str, functions: list[ast.FunctionDef], prompt: str, problems: Problems
) -> None:
    for function in functions:
        body = function.body
        if (
            len(body) != 1
            or not isinstance(body[0], ast.Assert)
            or not isinstance(body[0].test, ast.Compare)
            or len(body[0].test.ops) != 1
            or not isinstance(body[0].test.ops[0], ast.Eq)
        ):
            problems.append(
                f"coding {tid}: visible test {function.name} is not a single `assert x == expected`"
            )
            continue
        compare = body[0].test
        call_src = ast.get_source_segment(source, compare.left)
        expected_src = ast.get_source_segment(source, compare.comparators[0])
        for label, snippet in (("call", call_src), ("expected value", expected_src)):
            if snippet is None or snippet not in prompt:
                problems.append(
                    f"coding {tid}: visible {label} {snippet!r} ({function.name}) "
                    "is not in the prompt"
                )


def check_coding_static(task: dict[str, Any], problems: Problems) -> bool:
    """Check a coding task's structure without running anything; False if unusable."""
    tid = task.get("id", "?")
    missing = CODING_FIELDS - task.keys()
    extra = task.keys() - CODING_FIELDS
    if missing or extra:
        problems.append(
            f"coding {tid}: fields missing {sorted(missing)} / unexpected {sorted(extra)}"
        )
        return False
    if not ID_PATTERN.match(tid):
        problems.append(f"coding {tid}: id is not snake_case")
    if task["difficulty"] not in {"easy", "medium", "hard"}:
        problems.append(f"coding {tid}: bad difficulty {task['difficulty']!r}")
    prompt, entry = task["prompt"], task["entry_point"]
    if f"`{entry}(" not in prompt:
        problems.append(f"coding {tid}: prompt does not name `{entry}(...)`")
    if "single Python code block" not in prompt or "standard library" not in prompt:
        problems.append(
            f"coding {tid}: prompt does not ask for a single code block / standard library"
        )
    try:
        ast.parse(task["reference"])
    except SyntaxError as error:
        problems.append(f"coding {tid}: reference does not compile: {error}")
    names: dict[str, set[str]] = {}
    for kind, low, high in (("visible_tests", 2, 4), ("hidden_tests", 5, 10)):
        source = task[kind]
        try:
            functions = test_functions(source)
        except SyntaxError as error:
            problems.append(f"coding {tid}: {kind} do not compile: {error}")
            continue
        if not imports_entry(source, entry):
            problems.append(f"coding {tid}: {kind} do not `from solution import {entry}`")
        if not low <= len(functions) <= high:
            problems.append(f"coding {tid}: {kind} has {len(functions)} tests, want {low}-{high}")
        listed = [f.name for f in functions]
        if len(set(listed)) != len(listed):
            problems.append(f"coding {tid}: {kind} has duplicate test names")
        names[kind] = set(listed)
        if kind == "visible_tests":
            _check_visible_examples(tid, source, functions, prompt, problems)
    shared = names.get("visible_tests", set()) & names.get("hidden_tests", set())
    if shared:
        problems.append(f"coding {tid}: visible and hidden tests share names {sorted(shared)}")
    return True


def _pytest_environment(tmp: str) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": tmp,
        "TMPDIR": tmp,
        "LANG": "C.UTF-8",
        "PYTHONPATH": tmp,
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }


def run_pytest(solution: str, modules: dict[str, str]) -> dict[str, Any]:
    """Run pytest on the test modules against `solution`; return per-test outcomes.

    The result has `timeout`, and otherwise `returncode`, `cases` (module -> test name ->
    (passed, seconds)), the tail of the `output` and the `wall` seconds. The code run here
    is the task set's own (references, naive solutions), so no sandbox is needed.
    """
    with tempfile.TemporaryDirectory(prefix="bench-validate-") as tmp:
        directory = Path(tmp)
        (directory / "solution.py").write_text(solution)
        for name, source in modules.items():
            (directory / f"{name}.py").write_text(source)
        (directory / "pytest.ini").write_text("[pytest]\n")
        report = directory / "report.xml"
        command = [
            PYTHON,
            "-m",
            "pytest",
            "-q",
            "--no-header",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            tmp,
            "-c",
            str(directory / "pytest.ini"),
            f"--junitxml={report}",
            *[f"{name}.py" for name in modules],
        ]
        started = time.perf_counter()
        try:
            proc = subprocess.run(
                command,
                cwd=tmp,
                env=_pytest_environment(tmp),
                capture_output=True,
                text=True,
                timeout=RUN_TIMEOUT,
            )
        except subprocess.TimeoutExpired:
            return {"timeout": True, "cases": {}, "output": "", "wall": RUN_TIMEOUT}
        wall = time.perf_counter() - started
        cases: dict[str, dict[str, tuple[bool, float]]] = {name: {} for name in modules}
        if report.exists():
            for case in ElementTree.parse(report).getroot().iter("testcase"):
                module = case.get("classname", "").split(".")[0]
                ok = not any(child.tag in {"failure", "error", "skipped"} for child in case)
                seconds = float(case.get("time", 0))
                cases.setdefault(module, {})[case.get("name", "?")] = (ok, seconds)
        return {
            "timeout": False,
            "returncode": proc.returncode,
            "cases": cases,
            "output": proc.stdout[-3000:] + proc.stderr[-1000:],
            "wall": wall,
        }


def check_coding_run(task: dict[str, Any], naive: str | None, problems: Problems) -> dict[str, Any]:
    """Run the reference (and the naive solution, if given) against both test modules."""
    tid = task["id"]
    modules = {"test_visible": task["visible_tests"], "test_hidden": task["hidden_tests"]}
    expected_counts = {name: len(test_functions(src)) for name, src in modules.items()}
    result: dict[str, Any] = {"id": tid, "ok": True, "module_seconds": {}, "naive": None}
    run = run_pytest(task["reference"], modules)
    found = []
    if run["timeout"]:
        found.append("reference run timed out")
    else:
        for name, count in expected_counts.items():
            cases = run["cases"].get(name, {})
            passed = sum(ok for ok, _ in cases.values())
            seconds = sum(t for _, t in cases.values())
            result["module_seconds"][name] = seconds
            if len(cases) != count or passed != count:
                found.append(f"{name}: {passed}/{count} passed (collected {len(cases)})")
            if seconds > MODULE_SECONDS:
                found.append(f"{name}: took {seconds:.2f}s (> {MODULE_SECONDS}s)")
        if run["returncode"] != 0 and not found:
            found.append(f"pytest exit code {run['returncode']}")
    if found:
        result["ok"] = False
        problems.append(
            f"coding {tid}: reference: " + "; ".join(found) + "\n" + run.get("output", "")
        )
    if naive is not None:
        run = run_pytest(naive, modules)
        if run["timeout"]:
            result["naive"] = {"visible_failed": "?", "hidden_failed": "timeout"}
        else:
            failed = {
                name: sum(not ok for ok, _ in run["cases"].get(name, {}).values())
                + (expected_counts[name] - len(run["cases"].get(name, {})))
                for name in modules
            }
            result["naive"] = {
                "visible_failed": failed["test_visible"],
                "hidden_failed": failed["test_hidden"],
            }
            if failed["test_visible"] + failed["test_hidden"] == 0:
                result["ok"] = False
                problems.append(f"coding {tid}: the naive solution passes every test")
    return result


# --------------------------------------------------------------------------- writing tasks

KIND_FIELDS: dict[str, tuple[set[str], set[str]]] = {
    "word_count": ({"id", "kind"}, {"min", "max"}),
    "char_count": ({"id", "kind"}, {"min", "max"}),
    "regex": ({"id", "kind", "pattern"}, {"must_match", "ignore_case"}),
    "contains": ({"id", "kind", "phrases"}, {"case_sensitive"}),
    "headings": ({"id", "kind", "headings"}, set()),
    "json": ({"id", "kind"}, set()),
    "json_schema": ({"id", "kind", "schema"}, set()),
}
"""The criterion kinds a writing task may use: (required fields, optional fields)."""


def normal_title(title: str) -> str:
    """Normalize a heading for comparison (case and spacing)."""
    return " ".join(title.lower().split())


def check_criterion(criterion: dict[str, Any], text: str) -> tuple[bool, str]:
    """Check one criterion on `text` independently of critic_loop: (passed, evidence)."""
    kind = criterion["kind"]
    if kind in ("word_count", "char_count"):
        value = len(WORD.findall(text)) if kind == "word_count" else len(text)
        low, high = criterion.get("min"), criterion.get("max")
        ok = (low is None or value >= low) and (high is None or value <= high)
        return ok, f"{value} {'words' if kind == 'word_count' else 'chars'}"
    if kind == "regex":
        flags = re.MULTILINE | (re.IGNORECASE if criterion.get("ignore_case", False) else 0)
        found = re.search(criterion["pattern"], text, flags) is not None
        must = criterion.get("must_match", True)
        return found == must, f"{'matches' if found else 'no match'}"
    if kind == "contains":
        sensitive = criterion.get("case_sensitive", False)
        haystack = text if sensitive else text.lower()
        missing = [
            p for p in criterion["phrases"] if (p if sensitive else p.lower()) not in haystack
        ]
        return not missing, f"missing {missing}" if missing else "all present"
    if kind == "headings":
        present = {normal_title(t) for t in HEADING.findall(text)}
        missing = [h for h in criterion["headings"] if normal_title(h) not in present]
        return not missing, f"missing {missing}" if missing else "all present"
    if kind in ("json", "json_schema"):
        try:
            document = json.loads(text)
        except ValueError as error:
            return False, f"not JSON: {error}"
        if kind == "json":
            return True, "valid JSON"
        schema = criterion["schema"]
        errors = list(jsonschema.validators.validator_for(schema)(schema).iter_errors(document))
        return not errors, f"{len(errors)} schema errors" if errors else "schema ok"
    raise ValueError(f"unknown kind {kind}")


def _check_criterion_format(
    tid: str, criterion: dict[str, Any], prompt: str, problems: Problems
) -> bool:
    kind = criterion.get("kind")
    if kind not in KIND_FIELDS:
        problems.append(f"writing {tid}: criterion {criterion.get('id')} has unknown kind {kind!r}")
        return False
    ok = True
    required, optional = KIND_FIELDS[kind]
    keys = set(criterion)
    cid = criterion.get("id")
    if not required <= keys or keys - required - optional:
        problems.append(f"writing {tid}: criterion {cid} fields {sorted(keys)} (kind {kind})")
        return False
    if kind in ("word_count", "char_count"):
        bounds = [criterion[b] for b in ("min", "max") if b in criterion]
        if not bounds:
            problems.append(f"writing {tid}: criterion {cid} has no bounds")
            ok = False
        for bound in bounds:
            if str(bound) not in prompt:
                problems.append(
                    f"writing {tid}: bound {bound} of {cid} is not stated in the prompt"
                )
                ok = False
    elif kind == "regex":
        try:
            re.compile(criterion["pattern"])
        except re.error as error:
            problems.append(f"writing {tid}: pattern of {cid} does not compile: {error}")
            ok = False
    elif kind == "contains":
        for phrase in criterion["phrases"]:
            if phrase.lower() not in prompt.lower():
                problems.append(f"writing {tid}: phrase {phrase!r} is not stated in the prompt")
                ok = False
    elif kind == "headings":
        for heading in criterion["headings"]:
            if f'"{heading}"' not in prompt:
                problems.append(
                    f"writing {tid}: heading {heading!r} is not stated (quoted) in the prompt"
                )
                ok = False
    elif kind == "json_schema":
        schema = criterion["schema"]
        try:
            jsonschema.validators.validator_for(schema).check_schema(schema)
        except jsonschema.SchemaError as error:
            problems.append(f"writing {tid}: invalid schema in {cid}: {error.message}")
            ok = False
    return ok


def check_rubric_format(task: dict[str, Any], problems: Problems) -> bool:
    """Check a writing task's fields and rubric; False if it cannot be checked further."""
    tid = task.get("id", "?")
    if set(task) != WRITING_FIELDS:
        problems.append(f"writing {tid}: fields are {sorted(task)}")
        return False
    if not ID_PATTERN.match(tid):
        problems.append(f"writing {tid}: id is not snake_case")
    rubric = task["rubric"]
    ok = True
    if not 3 <= len(rubric) <= 5:
        problems.append(f"writing {tid}: {len(rubric)} criteria, want 3-5")
        ok = False
    ids = [c.get("id") for c in rubric]
    if len(set(ids)) != len(ids):
        problems.append(f"writing {tid}: duplicate criterion ids")
        ok = False
    for criterion in rubric:
        ok = _check_criterion_format(tid, criterion, task["prompt"], problems) and ok
    return ok


def check_writing(task: dict[str, Any], problems: Problems) -> dict[str, Any]:
    """Check a writing task: the reference passes every criterion, the bad example does not."""
    tid = task.get("id", "?")
    result: dict[str, Any] = {"id": tid, "ok": True, "bad_fails": []}
    if not check_rubric_format(task, problems):
        result["ok"] = False
        return result
    for criterion in task["rubric"]:
        passed, evidence = check_criterion(criterion, task["reference"])
        if not passed:
            result["ok"] = False
            problems.append(f"writing {tid}: reference fails {criterion['id']} ({evidence})")
        passed, evidence = check_criterion(criterion, task["bad_example"])
        if not passed:
            result["bad_fails"].append(criterion["id"])
    if not result["bad_fails"]:
        result["ok"] = False
        problems.append(f"writing {tid}: bad_example passes every criterion")
    return result


def check_with_app(writing: list[dict[str, Any]], problems: Problems) -> str:
    """Cross-check with critic_loop's own rubric model and checks (what the benchmark uses)."""
    adapter: TypeAdapter[Any] = TypeAdapter(Rubric)
    disagreements = 0
    for task in writing:
        try:
            rubric = adapter.validate_python(task["rubric"])
        except ValueError as error:
            problems.append(f"writing {task['id']}: critic_loop rejects the rubric: {error}")
            disagreements += 1
            continue
        for criterion, raw in zip(rubric, task["rubric"], strict=True):
            for label in ("reference", "bad_example"):
                ours, _ = check_criterion(raw, task[label])
                theirs = run_check(criterion, task[label]).passed
                if ours != theirs:
                    disagreements += 1
                    problems.append(
                        f"writing {task['id']}: {label}/{raw['id']}: "
                        f"validator={ours} critic_loop={theirs}"
                    )
    if disagreements:
        return f"{disagreements} disagreements"
    return "rubrics accepted, checks agree"


# --------------------------------------------------------------------------- main


def load_jsonl(path: Path, problems: Problems) -> list[dict[str, Any]]:
    """Read a JSON Lines file; a line that is not a JSON object is a problem, skipped."""
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as error:
            problems.append(f"{path.name}:{number}: invalid JSON: {error}")
            continue
        if isinstance(row, dict):
            rows.append(row)
        else:
            problems.append(f"{path.name}:{number}: not a JSON object")
    return rows


def _print_coding_summary(
    coding: list[dict[str, Any]],
    results: list[dict[str, Any]],
    naive: dict[str, str],
    elapsed: float,
) -> None:
    by_difficulty: dict[str, int] = {}
    for task in coding:
        level = task.get("difficulty", "?")
        by_difficulty[level] = by_difficulty.get(level, 0) + 1
    levels = ", ".join(f"{k} {v}" for k, v in sorted(by_difficulty.items()))
    print(f"Coding tasks: {len(coding)} ({levels})")
    slowest = max(
        ((s, r["id"], m) for r in results for m, s in r["module_seconds"].items()),
        default=(0.0, "-", "-"),
    )
    print(
        f"  references passing visible+hidden: {sum(r['ok'] for r in results)}/{len(coding)}"
        f"  (slowest module: {slowest[1]}/{slowest[2]} {slowest[0]:.3f}s; wall {elapsed:.1f}s)"
    )
    if not naive:
        return
    runs = [r["naive"] for r in results if r["naive"]]
    caught = sum(1 for n in runs if n["visible_failed"] or n["hidden_failed"])
    by_visible = sum(1 for n in runs if n["visible_failed"] not in (0, "?"))
    hidden_only = sum(1 for n in runs if n["visible_failed"] == 0 and n["hidden_failed"] != 0)
    print(
        f"  naive solutions caught: {caught}/{len(naive)} (by a visible test: {by_visible}; "
        f"by hidden tests only: {hidden_only})"
    )
    for r in results:
        if r["naive"]:
            n = r["naive"]
            print(
                f"    {r['id']:<28} naive fails visible {n['visible_failed']}, "
                f"hidden {n['hidden_failed']}"
            )


def main(argv: list[str] | None = None) -> int:
    """Validate the task files; print a summary; return 0 if every check passed, else 1."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.effectiveness.validate",
        description="Validate the effectiveness benchmark's task set.",
    )
    parser.add_argument("--no-naive", action="store_true", help="skip the naive-solution check")
    parser.add_argument("--jobs", type=int, default=min(8, os.cpu_count() or 2))
    parser.add_argument(
        "--dir", type=Path, default=TASKS_DIR, help="directory holding the task files"
    )
    args = parser.parse_args(argv)
    base: Path = args.dir
    problems: Problems = []

    coding = load_jsonl(base / "coding.jsonl", problems)
    writing = load_jsonl(base / "writing.jsonl", problems)
    naive_path = base / "naive_solutions.json"
    naive: dict[str, str] = (
        {} if args.no_naive or not naive_path.exists() else json.loads(naive_path.read_text())
    )

    ids = [t.get("id") for t in coding] + [t.get("id") for t in writing]
    duplicates = sorted({str(i) for i in ids if ids.count(i) > 1})
    if duplicates:
        problems.append(f"duplicate ids: {duplicates}")

    runnable = [task for task in coding if check_coding_static(task, problems)]

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        coding_results = list(
            pool.map(lambda t: check_coding_run(t, naive.get(t["id"]), problems), runnable)
        )
    elapsed = time.perf_counter() - started
    writing_results = [check_writing(task, problems) for task in writing]
    app_check = check_with_app(writing, problems)

    _print_coding_summary(coding, coding_results, naive, elapsed)
    print(f"Writing tasks: {len(writing)}")
    passing = sum(r["ok"] for r in writing_results)
    print(f"  references passing all criteria: {passing}/{len(writing)}")
    for r in writing_results:
        print(f"    {r['id']:<28} bad_example fails: {', '.join(r['bad_fails']) or '-'}")
    print(f"  critic_loop cross-check: {app_check}")

    if problems:
        print(f"\nFAILED ({len(problems)} problems):")
        for message in problems:
            print(" - " + message)
        return 1
    print("\nOK: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
