"""Where the user's workbench folder is: apart from `config`, whose settings records need
`dataclasses` (and its `inspect`), so that a warm run's client, which needs only this folder to
find its warm interpreter, imports none of that."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def agent_dir(env: Mapping[str, str] | None = None) -> Path:
    """The user's workbench/pi directory (`~/.pi/agent`, or `$PI_CODING_AGENT_DIR`), as this
    process sees it or as a process started with `env` will."""
    env = os.environ if env is None else env
    override = env.get("PI_CODING_AGENT_DIR")
    if override:
        return Path(override).expanduser()
    home = env.get("HOME")
    return (Path(home) if home else Path.home()) / ".pi" / "agent"
