"""The embedded local model itself: llama-cpp-python's server on the real model file.

Runs when the `local` extra is installed and CRITIC_LOOP_TEST_LOCAL_MODEL_FILE names the
model file on disk (handed to the product as CRITIC_LOOP_LOCAL_MODEL_FILE): a test switch
of its own, so a developer's everyday setting does not make the README's `pytest` load a
model. CRITIC_LOOP_REQUIRE_LOCAL_MODEL=1 makes a missing one fail instead of skip.
Each test starts one model server of its own: run them with no other model server busy on
the machine (`.ci/run` does, when CRITIC_LOOP_CI_EMBEDDED_MODEL=1). The default suite
tests the same paths against a stand-in (tests/integration/test_local_model.py).
"""

import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from critic_loop import local_model
from critic_loop.local_model.server import LocalModelServer, ServerFailed

NEEDS = "needs the local extra and CRITIC_LOOP_TEST_LOCAL_MODEL_FILE (the model on disk)"


def model_file() -> Path:
    """Return the model file on disk, or skip (fail, where it is required)."""
    named = os.environ.get("CRITIC_LOOP_TEST_LOCAL_MODEL_FILE")
    if local_model.is_installed() and named and Path(named).is_file():
        return Path(named)
    if os.environ.get("CRITIC_LOOP_REQUIRE_LOCAL_MODEL") == "1":
        pytest.fail(NEEDS)
    pytest.skip(NEEDS)


def test_the_demo_runs_on_the_embedded_model_and_stops_it(tmp_path) -> None:
    model = model_file()
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("OPENAI_", "GOOGLE_", "GEMINI_", "CRITIC_LOOP_"))
    }
    env["CRITIC_LOOP_LOCAL_MODEL_FILE"] = str(model)
    done = subprocess.run(
        [str(Path(sys.executable).with_name("critic-loop")), "demo", "--max-iterations", "4"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert done.returncode in (0, 1), done.stderr  # passed, or ended without a pass
    assert "worker openai:qwen2.5-coder-0.5b-instruct" in done.stdout
    assert "outcome:" in done.stdout
    [serving] = [line for line in done.stderr.splitlines() if "embedded model serves at" in line]
    base_url = serving.rsplit(" ", 1)[-1]
    with pytest.raises(OSError):  # stopped with the command
        urllib.request.urlopen(f"{base_url}/models", timeout=2)


def test_a_server_that_cannot_load_its_model_fails_with_its_log(tmp_path) -> None:
    model_file()
    bad = tmp_path / "not-a-model.gguf"
    bad.write_bytes(b"not a model")
    server = LocalModelServer(
        bad, "bad", threads=1, context_size=512, log_dir=tmp_path, startup_timeout=120
    )
    with pytest.raises(ServerFailed, match="exited with status"):
        server.start()
    assert server.log_path.exists()  # kept for the reader of the message
    assert not server.running
