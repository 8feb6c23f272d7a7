"""Where the app writes its log: the terminal belongs to the screen, so tracebacks of unexpected
failures go to a file, and the chat names that file."""

from __future__ import annotations

import logging
from pathlib import Path

from workbench.config import agent_dir


def log_path() -> Path:
    return agent_dir() / "logs" / "workbench.log"


def start_logging() -> Path:
    """Send warnings and errors of every part to the log file (never to the screen)."""
    path = log_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    return path
