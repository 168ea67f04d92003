"""Every `minigrad graph` command in README.md runs as written, on the files that ship with
the course (examples/), from a copy of the course folder."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from minigrad.cli import main

ROOT = Path(__file__).resolve().parents[2]


def readme_graph_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", readme, flags=re.S):
        for line in block.splitlines():
            command = line.split(" # ")[0].strip() if "#" in line else line.strip()
            if command.startswith("minigrad graph "):
                commands.append(command)
    return commands


def test_the_readme_has_graph_commands_for_scripts_and_expressions() -> None:
    commands = readme_graph_commands()
    assert len(commands) >= 4
    assert any("examples/model.py" in command for command in commands)
    assert any(" -e " in command for command in commands)


@pytest.mark.parametrize("command", readme_graph_commands())
def test_a_readme_graph_command_runs_as_written(command: str, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    words = shlex.split(command, comments=True)
    assert main(words[1:]) == 0
    out = Path(words[words.index("--out") + 1])
    assert out.is_file() and out.stat().st_size > 0
