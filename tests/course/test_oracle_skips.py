"""Without PyTorch, the oracle tests skip and say how to run them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]  # tests/, where conftest.py is


def test_a_skip_for_want_of_torch_says_how_to_install_the_oracle(tmp_path: Path) -> None:
    shutil.copy(HERE / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_module_level.py").write_text(
        "import sys\nimport pytest\nsys.modules['torch'] = None  # as if not installed\n"
        "torch = pytest.importorskip('torch')\n\ndef test_x():\n    pass\n")
    (tmp_path / "test_inside.py").write_text(
        "import sys\nimport pytest\n\ndef test_y():\n    sys.modules['torch'] = None\n"
        "    pytest.importorskip('torch')\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-rs", "-p", "no:cacheprovider",
                           str(tmp_path)], capture_output=True, text=True, cwd=tmp_path,
                          timeout=120)
    assert "2 skipped" in done.stdout, done.stdout
    assert done.stdout.count("MINIGRAD_ORACLE=1 make test") == 2, done.stdout
    assert "could not import" not in done.stdout
