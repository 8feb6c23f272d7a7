"""A reader that goes away early (`workbench ... | head -3`): stop writing, exit quietly.

Python ignores SIGPIPE, so a write to a pipe nobody reads any more raises BrokenPipeError. Like
other command-line tools, workbench then stops writing and exits with 141 (128 + SIGPIPE), without
a traceback. stdout is pointed at /dev/null so that output still buffered (flushed at exit) fails
nowhere.
"""

from __future__ import annotations

import os
import signal
import sys

EXIT_BROKEN_PIPE = 128 + signal.SIGPIPE


def silence_stdout() -> None:
    """From now on, whatever goes to stdout is dropped."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        os.close(devnull)
