"""A plain `pip install .` (a wheel, not an editable install) carries the templates and
the sample boards, and the installed gm finds them."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_carries_templates_and_sample_boards(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        check=True, capture_output=True,
    )
    wheel = next(tmp_path.glob("gm-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for template in (ROOT / "templates").rglob("*"):
        if template.is_file():
            assert f"gm/data/templates/{template.relative_to(ROOT / 'templates').as_posix()}" in names
    for board in (ROOT / "boards").glob("*.yaml"):
        assert f"gm/data/boards/{board.name}" in names
    assert "gm/cli.py" in names and "gm/rules/postal.py" in names and "gm/mail/inbound.py" in names
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "gm = gm.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()
