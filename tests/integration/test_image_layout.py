"""The sandbox works in the layout of the LangGraph server image, and hides that image's project.

`langgraph build` makes an image from `langchain/langgraph-api`: Python and every installed
package under /usr/local (site-packages at /usr/local/lib/python3.11/site-packages), the
project copied to /deps/<name> and installed in editable mode, bubblewrap from
langgraph.json's `dockerfile_lines`, the server running as root. Docker is not available
here, so this test rebuilds that layout with bubblewrap itself: a private root with the
host's /usr, this virtualenv mounted read-only at /usr/local (its editable finder pointed
at /deps), and the checkout at /deps/critic-loop. Inside it, critic-loop is imported from
/deps as in the image, finds the complete sandbox, and a client's drafted code runs in it:
pytest works, and the code can neither see /deps nor write into site-packages.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.dev_server import PROJECT

pytestmark = pytest.mark.integration

BWRAP = shutil.which("bwrap")
SITE_PACKAGES = Path(sys.prefix) / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
SITE_PACKAGES = SITE_PACKAGES / "site-packages"
IMAGE_PROJECT = "/deps/critic-loop"

ESCAPES = """
import os, pathlib, site

def test_pytest_runs_and_the_image_is_out_of_reach():
    assert not os.path.exists("/deps")
    for place in site.getsitepackages() + ["/usr/local/lib/python3.11/site-packages"]:
        try:
            pathlib.Path(place, "escape.pth").write_text("import os")
        except OSError:
            continue
        raise AssertionError(f"wrote into {place}")
    assert os.getuid() != 0
"""

SERVER_SIDE = """
import json, sys
import critic_loop.nodes
from critic_loop.nodes.operator_policy import Trust
from critic_loop.nodes.verifiers.checks.test_suite import sandbox_for
from critic_loop.nodes.verifiers.checks.test_suite import run_test_suite
from critic_loop.state.operator_settings import OperatorSettings
from critic_loop.state.rubric import TestSuite

found = sandbox_for(Trust(served=True, settings=OperatorSettings()))
criterion = TestSuite(id="escape", kind="tests", tests=sys.argv[1], timeout_seconds=60)
result = run_test_suite(criterion, "def nothing():\\n    pass\\n")
print(json.dumps({
    "prefix": sys.prefix,
    "imported_from": critic_loop.nodes.__file__,
    "isolation": found.mode,
    "complete": found.complete,
    "passed": result.passed,
    "evidence": result.evidence,
}))
"""


def editable_finder() -> Path | None:
    found = sorted(SITE_PACKAGES.glob("__editable___critic_loop_*_finder.py"))
    return found[0] if found else None


def image_layout(finder: Path, patched: Path) -> list[str]:
    """bubblewrap's options that lay out the image's filesystem around the server process."""
    options = [str(BWRAP), "--tmpfs", "/", "--ro-bind", "/usr", "/usr"]
    for name in ("/bin", "/sbin", "/lib", "/lib32", "/lib64"):
        path = Path(name)
        if path.is_symlink():
            options += ["--symlink", str(path.readlink()), name]
        elif path.is_dir():
            options += ["--ro-bind", name, name]
    options += ["--ro-bind", "/etc", "/etc", "--proc", "/proc", "--dev-bind", "/dev", "/dev"]
    options += ["--tmpfs", "/tmp"]
    base = Path(sys.base_prefix)
    if not base.is_relative_to("/usr"):  # the virtualenv's own interpreter
        options += ["--ro-bind", str(base), str(base)]
    options += ["--ro-bind", sys.prefix, "/usr/local"]
    inside = Path("/usr/local") / finder.relative_to(sys.prefix)
    options += ["--ro-bind", str(patched), str(inside)]
    options += ["--ro-bind", str(PROJECT), IMAGE_PROJECT, "--chdir", IMAGE_PROJECT]
    return [*options, "--cap-add", "ALL", "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin"]


@pytest.mark.skipif(BWRAP is None, reason="needs bubblewrap")
def test_the_sandbox_works_in_the_server_images_layout(tmp_path: Path) -> None:
    finder = editable_finder()
    if sys.prefix == sys.base_prefix or finder is None:
        pytest.skip("needs critic-loop installed in editable mode in a virtualenv")
    patched = tmp_path / finder.name
    patched.write_text(finder.read_text().replace(str(PROJECT), IMAGE_PROJECT))
    done = subprocess.run(
        [*image_layout(finder, patched), "/usr/local/bin/python", "-c", SERVER_SIDE, ESCAPES],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["prefix"] == "/usr/local"
    assert report["imported_from"] == f"{IMAGE_PROJECT}/nodes/__init__.py"
    assert (report["isolation"], report["complete"]) == ("bwrap", True)
    assert report["passed"], report["evidence"]
