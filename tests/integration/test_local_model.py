"""The embedded local model: its download, its server, and the command line without a model.

The download is tested against a file server on 127.0.0.1 (this machine reaches no model
hub). The server is llama-cpp-python's stand-in, `tests.support.fake_llama_server` (put in
its place for every test outside tests/real_model by tests/conftest.py): these tests
neither need the `local` extra nor load a model. The real model's run is in
tests/real_model/test_embedded_model.py.
"""

import hashlib
import os
import urllib.request

import pytest

from critic_loop import local_model
from critic_loop.local_model.download import DownloadFailed, download
from critic_loop.local_model.server import LocalModelServer, ServerFailed
from critic_loop.local_model.settings import LocalModelSettings
from critic_loop.nodes.models.discovery import MODEL_FIELDS, with_available_models
from critic_loop.state.context import PROFILE_FIELDS, Context
from critic_loop.state.extras import install_command
from tests.support.fake_llama_server import write_model_file
from tests.support.file_server import FileServer

pytestmark = pytest.mark.integration

BLOB = os.urandom(3 << 20)  # 3 MiB: several chunks
SHA = hashlib.sha256(BLOB).hexdigest()


def test_a_download_arrives_whole_with_progress(tmp_path) -> None:
    seen: list[tuple[int, int | None]] = []
    with FileServer(BLOB) as server:
        path = download(server.url, tmp_path / "m.gguf", SHA, lambda *p: seen.append(p))
    assert path.read_bytes() == BLOB
    assert seen[0] == (0, len(BLOB)) and seen[-1] == (len(BLOB), len(BLOB))
    assert not (tmp_path / "m.gguf.part").exists()


def test_a_file_with_the_wrong_sha256_is_removed_and_refused(tmp_path) -> None:
    with FileServer(BLOB) as server, pytest.raises(DownloadFailed, match="not the expected one"):
        download(server.url, tmp_path / "m.gguf", "0" * 64)
    assert list(tmp_path.iterdir()) == [tmp_path / "m.gguf.lock"]


def test_a_download_cut_off_resumes_where_it_stopped(tmp_path) -> None:
    with FileServer(BLOB) as server:
        server.cut_after = 1 << 20
        with pytest.raises(DownloadFailed, match="run the command again to resume"):
            download(server.url, tmp_path / "m.gguf", SHA)
        assert (tmp_path / "m.gguf.part").stat().st_size == 1 << 20
        path = download(server.url, tmp_path / "m.gguf", SHA)
        assert server.requests[-1]["Range"] == f"bytes={1 << 20}-"
    assert path.read_bytes() == BLOB


def test_a_server_without_ranges_makes_the_download_start_again(tmp_path) -> None:
    (tmp_path / "m.gguf.part").write_bytes(BLOB[:1000])
    with FileServer(BLOB, ranges=False) as server:
        path = download(server.url, tmp_path / "m.gguf", SHA)
    assert path.read_bytes() == BLOB


def test_a_whole_part_left_by_a_stopped_process_is_checked_and_kept(tmp_path) -> None:
    (tmp_path / "m.gguf.part").write_bytes(BLOB)
    with FileServer(BLOB) as server:
        path = download(server.url, tmp_path / "m.gguf", SHA)
    assert path.read_bytes() == BLOB


def test_an_unreachable_home_is_one_clear_error(tmp_path) -> None:
    with pytest.raises(DownloadFailed, match="127.0.0.1:9"):
        download("http://127.0.0.1:9/m.gguf", tmp_path / "m.gguf", SHA, timeout=2)


def test_a_downloaded_model_is_used_from_the_cache(tmp_path) -> None:
    with FileServer(BLOB) as server:
        settings = local_model.LocalModelSettings(
            file=None, url=server.url, sha256=SHA, cache_dir=tmp_path
        )
        first = local_model.model_file(settings)
        second = local_model.model_file(settings)
        assert len(server.requests) == 1
    assert first == second == tmp_path / "model.gguf"


def test_without_the_extra_one_line_names_the_command_that_adds_it(run_cli, monkeypatch) -> None:
    monkeypatch.setattr(local_model, "is_installed", lambda: False)
    done = run_cli("demo")
    assert done.returncode == 2
    assert done.stdout == ""
    [line] = done.stderr.strip().splitlines()
    assert line.endswith(f"add the embedded local model with: {install_command('local')}")
    assert "OPENAI_API_KEY" in line and "OPENAI_BASE_URL" in line


def test_a_model_file_that_is_not_there_is_one_line(run_cli, monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(local_model, "is_installed", lambda: True)
    done = run_cli("-q", "demo", env={"CRITIC_LOOP_LOCAL_MODEL_FILE": str(tmp_path / "no.gguf")})
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert "CRITIC_LOOP_LOCAL_MODEL_FILE" in line and "no such file" in line


def test_the_demo_runs_on_the_embedded_model_and_stops_it(run_cli, monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(local_model, "is_installed", lambda: True)
    model = write_model_file(tmp_path / "model.gguf")
    env = {"CRITIC_LOOP_LOCAL_MODEL_FILE": str(model), "XDG_CACHE_HOME": str(tmp_path)}
    done = run_cli("demo", "--max-iterations", "4", env=env)
    assert done.returncode == 0, done.stderr
    assert "worker openai:qwen2.5-coder-0.5b-instruct" in done.stdout
    assert "outcome: passed" in done.stdout
    [serving] = [line for line in done.stderr.splitlines() if "embedded model serves at" in line]
    base_url = serving.rsplit(" ", 1)[-1]
    with pytest.raises(OSError):  # stopped with the command
        urllib.request.urlopen(f"{base_url}/models", timeout=2)
    assert list((tmp_path / "critic-loop").glob("embedded-server-*.log")) == []


def test_the_embedded_model_runs_with_what_a_server_of_the_same_model_gets(tmp_path) -> None:
    settings = LocalModelSettings(file=write_model_file(tmp_path / "model.gguf"), threads=1)
    try:
        embedded = Context(**local_model.embedded_model_context(settings))
        served = with_available_models(Context(base_url=embedded.base_url), {})
    finally:
        local_model.stop_embedded_model()
    for field in (*MODEL_FIELDS, *PROFILE_FIELDS):
        assert getattr(embedded, field) == getattr(served, field), field
    assert embedded.judge_mode == "extract_ask"  # the model's judge profile


def test_a_server_that_cannot_load_its_model_fails_with_its_log(tmp_path) -> None:
    bad = tmp_path / "not-a-model.gguf"
    bad.write_bytes(b"not a model")
    server = LocalModelServer(
        bad, "bad", threads=1, context_size=512, log_dir=tmp_path, startup_timeout=60
    )
    with pytest.raises(ServerFailed, match="exited with status 1 .*invalid magic"):
        server.start()
    assert server.log_path.exists()  # kept for the reader of the message
    assert not server.running


def test_a_model_that_will_not_load_is_one_line_naming_the_log(run_cli, monkeypatch, tmp_path):
    monkeypatch.setattr(local_model, "is_installed", lambda: True)
    bad = tmp_path / "not-a-model.gguf"
    bad.write_bytes(b"not a model")
    env = {"CRITIC_LOOP_LOCAL_MODEL_FILE": str(bad), "XDG_CACHE_HOME": str(tmp_path)}
    done = run_cli("-q", "demo", env=env)
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert "embedded model server exited with status 1" in line
    assert str(tmp_path / "critic-loop") in line and "invalid magic" in line
