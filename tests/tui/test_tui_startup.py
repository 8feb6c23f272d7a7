"""The app's first frame pays only for Textual: the heavy parts load after it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from support.terminal import exit_status, read_until, start_app, stop_app

LATER = (
    "litellm",
    "git",
    "networkx",
    "workbench.runtime.workbench",  # the package is light: the app reads its command registry
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


def test_workbench_with_no_arguments_in_a_terminal_opens_the_app(project: Path) -> None:
    """The real entry point in a pseudo-terminal: the app draws, opens the session, and quits
    on Ctrl+C twice with exit code 0."""
    pid, fd = start_app(project)
    try:
        read_until(fd, b"essage the agent", 30)  # the editor's placeholder (the cursor splits M)
        read_until(fd, "⎇ main".encode(), 30)  # the session is open: its branch in the footer
        os.write(fd, b"\x03")
        time.sleep(0.2)
        os.write(fd, b"\x03")
        status = exit_status(pid, fd, 30)
        pid = 0
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        stop_app(pid, fd)
