"""The command an error names to add an optional extra works where the user stands."""

import shlex
import sys
from pathlib import Path

from critic_loop import extras
from critic_loop.extras import install_command, missing_extra_message

CLONE = Path(__file__).resolve().parents[2]


def test_from_the_clone_folder_the_command_installs_the_clone_editably(monkeypatch) -> None:
    monkeypatch.chdir(CLONE)
    words = shlex.split(install_command("plot"))
    assert words[1:] == ["-m", "pip", "install", "-e", ".[plot]"]
    assert Path(words[0]).resolve() == Path(sys.executable).resolve()


def test_elsewhere_the_command_names_the_clone_by_its_path(monkeypatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path)
    words = shlex.split(install_command("local"))
    assert words[-2:] == ["-e", f"{CLONE}[local]"]


def test_from_an_installed_package_the_command_names_the_package(monkeypatch) -> None:
    monkeypatch.setattr(extras, "source_tree", lambda: None)
    assert install_command("postgres").endswith(" -m pip install 'critic-loop[postgres]'")


def test_the_message_is_one_line_with_the_command() -> None:
    message = missing_extra_message("--plot draws with matplotlib, which is not installed", "plot")
    assert "\n" not in message
    assert message.endswith(f"add it with: {install_command('plot')}")
