"""A plain `pip install .` (a wheel, not an editable install) carries the templates, the
sample boards and the docs (the archive's rules page and the HELP mail's link come from
docs/rules), and the installed gm finds them."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_carries_templates_sample_boards_and_docs(tmp_path):
    # built from a copy, so that a stale build/ folder of the checkout cannot lend it files
    source = tmp_path / "src"
    for part in ("gm", "templates", "boards", "docs"):
        shutil.copytree(ROOT / part, source / part, ignore=shutil.ignore_patterns("__pycache__"))
    for part in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / part, source / part)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(source)],
        check=True, capture_output=True,
    )
    wheel = next(tmp_path.glob("gm-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for template in (ROOT / "templates").rglob("*"):
        if template.is_file():
            assert f"gm/data/templates/{template.relative_to(ROOT / 'templates').as_posix()}" in names
    for board in (ROOT / "boards").glob("*.yaml"):
        assert f"gm/data/boards/{board.name}" in names
    # every ruleset's rules page, which an installed gm renders as the archive's rules.html
    for page in (ROOT / "docs" / "rules").glob("*.md"):
        assert f"gm/data/docs/rules/{page.name}" in names
    assert "gm/data/docs/rules/postal.md" in names
    # every module of every package, so a package missing from pyproject.toml shows here
    modules = {f"gm/{m.relative_to(ROOT / 'gm').as_posix()}" for m in (ROOT / "gm").rglob("*.py")}
    assert modules <= names, sorted(modules - names)
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "gm = gm.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()
