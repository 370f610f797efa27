"""`gm` run in a fresh interpreter, as a GM runs it, for the tests that hold a command to
what it imports (every module a weekly command loads is time the GM waits)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the command's own main, then the names of every module it loaded, even when it fails
SCRIPT = ("import sys\nfrom gm.cli import main\nsys.argv = ['gm', *sys.argv[1:]]\ntry:\n    main()\n"
          "finally:\n    sys.stderr.write('modules: ' + ' '.join(sorted(sys.modules)))\n")


def gm_command(*args: str) -> tuple[str, set[str]]:
    """`gm ARGS` in a fresh interpreter (GM_NOW from this process's environment), asserting
    it exits 0: what it printed, and every module it imported."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH")))))
    done = subprocess.run([sys.executable, "-c", SCRIPT, *args], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout, set(done.stderr.rpartition("modules: ")[2].split())
