"""The README introduces, the docs site holds the reference, and their links lead somewhere.

`mkdocs build --strict` (in `.ci/run`, `make docs` and `tests/integration/test_docs_site.py`)
checks the links between docs pages; the README is not part of the site, so its links are
checked here, as GitHub resolves them.
"""

import json
import re
import subprocess
import tomllib
import unicodedata
from pathlib import Path

import pytest
import yaml

from critic_loop.state.context import Context

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
"""A Markdown link's target (images left out)."""

FENCE = re.compile(r"^\s*(`{3,}|~{3,})")

OUTSIDE_PATHS = ["../" + "shared", "/work/" + "shared"]
"""Paths of the workplace beside the checkout, which no clone has (spelled apart here)."""


def prose_lines(text: str) -> list[str]:
    """Return the lines of a Markdown text outside its code fences."""
    lines, fence = [], ""
    for line in text.splitlines():
        opening = FENCE.match(line)
        if opening and (not fence or opening.group(1).startswith(fence)):
            fence = "" if fence else opening.group(1)
            continue
        if not fence:
            lines.append(line)
    return lines


def heading_anchor(heading: str) -> str:
    """Return the anchor GitHub gives a heading (and MkDocs, for the headings used here)."""
    text = re.sub(r"`|\*\*|\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    text = unicodedata.normalize("NFKD", text)
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors_of(page: Path) -> set[str]:
    """Return the anchors of every heading of a Markdown page."""
    headings = [line for line in prose_lines(page.read_text()) if re.match(r"#{1,6} ", line)]
    return {heading_anchor(line.lstrip("#")) for line in headings}


def nav_pages(entries: object) -> list[str]:
    """Return every page file named in a MkDocs `nav`, in order."""
    if isinstance(entries, str):
        return [entries]
    if isinstance(entries, list):
        return [page for entry in entries for page in nav_pages(entry)]
    if isinstance(entries, dict):
        return [page for value in entries.values() for page in nav_pages(value)]
    return []


def test_the_readme_is_an_introduction_of_at_most_250_lines() -> None:
    lines = README.read_text().splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines; move reference text to docs/"


def test_the_readme_reads_in_a_newcomers_order_with_one_spelling_of_the_command() -> None:
    text = README.read_text()
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    wanted = [
        "## The two commands",
        "## What a run looks like",
        "## Your own task",
        "## From Python",
        "## Studio and the server",
        "## How well it works",
    ]
    assert [heading for heading in headings if heading in wanted] == wanted
    assert headings.index(wanted[0]) <= 1  # after what it is, before anything else
    for other in (".venv/bin/critic-loop", "python -m critic_loop ", "critic_loop.cli"):
        assert other not in text, f"the README writes the command as {other!r}: critic-loop"


def test_every_setting_is_in_the_settings_page() -> None:
    page = (DOCS / "settings.md").read_text()
    documented = set(re.findall(r"^\| `(\w+)` \|", page, flags=re.MULTILINE))
    assert set(Context.model_fields) <= documented


def mkdocs_config() -> dict:
    """Read mkdocs.yml (its `!!python/name:` tags name functions: read as their names)."""

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, tag, node: tag)
    return yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=Loader)  # noqa: S506


def test_every_docs_page_is_in_the_navigation_and_every_entry_is_a_page() -> None:
    config = mkdocs_config()
    listed = nav_pages(config["nav"])
    assert len(listed) == len(set(listed)), "a page is listed twice in mkdocs.yml"
    assert set(listed) == {page.name for page in DOCS.glob("*.md")}


@pytest.mark.parametrize("page", [README, *sorted(DOCS.glob("*.md"))], ids=lambda p: p.name)
def test_every_relative_link_leads_to_a_file_and_heading_that_exist(page: Path) -> None:
    broken = []
    for line in prose_lines(page.read_text()):
        for target in LINK.findall(line):
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto:
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            if not linked.exists():
                broken.append(f"{target}: no such file")
            elif anchor and linked.suffix == ".md" and anchor not in anchors_of(linked):
                broken.append(f"{target}: no heading with that anchor")
    assert not broken, f"{page.name}: " + "; ".join(broken)


def test_the_docs_pages_link_only_to_pages_of_the_site() -> None:
    for page in DOCS.glob("*.md"):
        for line in prose_lines(page.read_text()):
            for target in LINK.findall(line):
                path = target.partition("#")[0]
                assert not path.startswith(".."), f"{page.name}: {target} leaves the site"


def test_no_file_refers_to_a_path_outside_the_repository() -> None:
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    found = []
    for name in listed.decode().split("\0"):
        path = ROOT / name
        if not name or name.startswith(".ci/") or not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", errors="ignore")
        found += [f"{name}: {outside}" for outside in OUTSIDE_PATHS if outside in text]
    assert not found, "paths outside the repository:\n" + "\n".join(found)


def test_heading_anchors_follow_githubs_rules() -> None:
    assert heading_anchor(" `critic-loop calibrate LABELS.jsonl`") == (
        "critic-loop-calibrate-labelsjsonl"
    )
    assert heading_anchor(" Does it pay? The effectiveness benchmark") == (
        "does-it-pay-the-effectiveness-benchmark"
    )
    assert heading_anchor(" The operator's settings") == "the-operators-settings"


# --- what the pages say about the code (issue 29, point 5) -------------------------------

PAGES = [README, *sorted(DOCS.glob("*.md"))]


def test_the_extras_table_lists_every_extra_and_what_dev_brings() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    rows = {
        match.group(1): match.group(2)
        for match in re.finditer(
            r"^\| `(\w+)` \| (.*?) \|", (DOCS / "getting-started.md").read_text(), re.MULTILINE
        )
    }
    assert set(rows) == set(extras)
    [bundled] = [item for item in extras["dev"] if item.startswith("critic-loop[")]
    brings = set(bundled.removeprefix("critic-loop[").removesuffix("]").split(","))
    named = set(re.findall(r"`(\w+)`", rows["dev"]))
    assert named == brings, f"the dev row names {sorted(named)}; dev brings {sorted(brings)}"


def test_the_rule_index_field_is_the_one_langgraph_json_indexes() -> None:
    fields = json.loads((ROOT / "langgraph.json").read_text())["store"]["index"]["fields"]
    claims = []
    for page in PAGES:
        prose = " ".join(prose_lines(page.read_text()))
        for sentence in re.split(r"(?<=[.;:])\s", prose):
            if "index" in sentence or "embeds" in sentence:
                claims += [(page.name, f) for f in re.findall(r"rules?'s? `(\w+)`", sentence)]
    assert claims, "no page says which field of a rule is indexed"
    assert [claim for claim in claims if claim[1] not in fields] == []


MODEL_SERVER_PORT = "8080"
"""The port every page runs a local model server on (llama.cpp's `llama-server` default)."""

OTHER_SERVERS_PORTS = {"11434": "Ollama's own", "8000": "vLLM's own"}
"""Ports of servers that choose their own, as their recipes in models.md show them."""


def test_every_page_runs_the_local_model_server_on_one_port() -> None:
    ports = []
    for page in PAGES:
        text = page.read_text()
        ports += [(page.name, port) for port in re.findall(r"127\.0\.0\.1:(\d+)/v1", text)]
        ports += [(page.name, port) for port in re.findall(r"llama\S* .*--port (\d+)", text)]
    assert ports
    allowed = {MODEL_SERVER_PORT, *OTHER_SERVERS_PORTS}
    assert [(page, port) for page, port in ports if port not in allowed] == []


def test_the_theme_draws_the_mermaid_maps() -> None:
    config = mkdocs_config()
    assert config["theme"]["name"] == "material"
    [fences] = [
        entry["pymdownx.superfences"]["custom_fences"]
        for entry in config["markdown_extensions"]
        if isinstance(entry, dict) and "pymdownx.superfences" in entry
    ]
    assert {"name": "mermaid", "class": "mermaid"}.items() <= fences[0].items()
    assert "```mermaid" in (DOCS / "how-it-works.md").read_text()


def test_the_pages_give_the_demos_pass_rate_its_trials_recorded() -> None:
    trials = (ROOT / "benchmarks" / "demo_trials" / "local-0.5b.md").read_text()
    passed, runs = re.search(r"\*\*passed: (\d+)/(\d+)\*\*", trials).groups()
    stated = f"passed in {passed} of {runs} runs"
    for page in (README, DOCS / "getting-started.md"):
        text = " ".join(page.read_text().split())
        assert stated in text or f"passed the demo in {passed} of {runs} runs" in text, page.name
        assert not re.search(r"demo passed in (?!" + passed + " of " + runs + r")\d+ of", text)
