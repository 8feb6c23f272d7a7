"""Where workbench writes its log when its terminal or stdout is not free for it (the app's
screen, the ACP protocol): warnings and tracebacks go to a file, and the app names that file."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from workbench.config import agent_dir


def log_path() -> Path:
    return agent_dir() / "logs" / "workbench.log"


def start_logging() -> Path:
    """Send warnings and errors of every part to the log file (never to the screen or stdout)."""
    path = log_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.FileHandler(path, encoding="utf-8")
    except OSError:  # no writable home: stderr is better than nothing
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    return path
