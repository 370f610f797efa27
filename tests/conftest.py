"""Test set-up: make tests/ importable and register the real mail server fixtures."""

import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
# pyproject.toml sets no pythonpath; put the checkout and tests/ on sys.path ourselves.
for _path in (_HERE.parent, _HERE):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

pytest_plugins = ["servers", "campaignfixtures"]
