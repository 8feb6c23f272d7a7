"""Keys written to the app's real terminal (a pseudo-terminal), as a person or tmux types them."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from support.app_pilot import write_script
from support.terminal import exit_status, read_until, start_app, stop_app


def test_a_burst_with_ctrl_j_on_a_real_terminal_is_one_message_nothing_lost(
    project: Path,
) -> None:
    """`alpha one`, Ctrl+J, `beta two`, Ctrl+J, `gamma three`, Enter written at once (a paste,
    `tmux send-keys`): the line breaks of the burst are new lines, the Enter that ends it sends,
    and the session holds the three lines once, as one message."""
    model = write_script(project, {"text": "Noted all three."})
    pid, fd = start_app(project, "--model", model)
    try:
        read_until(fd, "⎇ main".encode(), 60)  # the session is open
        os.write(fd, b"alpha one\nbeta two\ngamma three\r")
        read_until(fd, b"Noted all three.", 60)
        time.sleep(0.5)  # the run's end drawn: Ctrl+C no longer stops it
        os.write(fd, b"\x03")
        time.sleep(0.2)
        os.write(fd, b"\x03")
        status = exit_status(pid, fd, 30)
        pid = 0
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        stop_app(pid, fd)
    export = subprocess.run(
        [sys.executable, "-m", "workbench", "export", "--format", "md", "-o", "-"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert export.returncode == 0, export.stderr
    assert export.stdout.count("**You**") == 1, export.stdout
    assert "alpha one\nbeta two\ngamma three\n" in export.stdout
