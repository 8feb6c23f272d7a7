"""The app's first frame pays only for Textual: the heavy parts load after it."""

from __future__ import annotations

import subprocess
import sys

LATER = (
    "litellm",
    "git",
    "networkx",
    "workbench.runtime",
    "workbench.agent.loop",
    "textual.widgets._markdown",
)


def test_the_app_module_leaves_the_heavy_parts_for_after_the_first_frame() -> None:
    code = (
        f"import sys, workbench.tui.app\nprint(','.join(m for m in {LATER!r} if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""
