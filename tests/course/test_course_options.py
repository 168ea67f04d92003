"""`minigrad course` passes JupyterLab's usual options through (--no-browser, --port, --ip,
any --ServerApp.* / --LabApp.*), for students on a remote machine or a JupyterHub; other
unknown options are still refused."""

from __future__ import annotations

from pathlib import Path

import pytest

import minigrad.course.folder as folder
from minigrad.cli import main


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    commands: list[list[str]] = []

    class FakeServer:
        def __init__(self, command: list[str]) -> None:
            commands.append(command)

        def wait(self) -> int:
            return 0

    monkeypatch.setattr(folder.subprocess, "Popen", FakeServer)
    return commands


def test_jupyterlabs_options_reach_jupyterlab(tmp_path: Path, started, capsys) -> None:
    assert main(["course", str(tmp_path / "c"), "--no-browser", "--port", "8890", "--ip",
                 "0.0.0.0", "--ServerApp.token=secret", "--LabApp.default_url=/lab"]) == 0
    (command,) = started
    for option in ("--no-browser", "--port=8890", "--ip=0.0.0.0", "--ServerApp.token=secret",
                   "--LabApp.default_url=/lab"):
        assert option in command, option
    # The course's own default URL (notebook 01) comes first, so the student's wins.
    ours = command.index("--LabApp.default_url=/lab/tree/notebooks/01-derivatives.ipynb")
    assert ours < command.index("--LabApp.default_url=/lab")


def test_without_options_jupyterlab_starts_as_before(tmp_path: Path, started, capsys) -> None:
    assert main(["course", str(tmp_path / "c")]) == 0
    assert "--no-browser" not in started[0] and not any(w.startswith("--port") for w in started[0])


def test_an_unknown_option_is_still_an_error(tmp_path: Path, started, capsys) -> None:
    with pytest.raises(SystemExit):
        main(["course", str(tmp_path / "c"), "--colour"])
    with pytest.raises(SystemExit):
        main(["lessons", "--ServerApp.port=1"])  # only `course` starts JupyterLab
    assert started == []
