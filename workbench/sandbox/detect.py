"""Whether bubblewrap can box commands here: found on the PATH, and able to make the
namespaces it needs (some containers forbid them). Probed once per process and search path: a
warm interpreter probes at its warm-up, and the runs it forks inherit the answer for their PATH."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess

INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install "
    "bubblewrap), or choose --sandbox off"
)
PROBE_TIMEOUT_S = 20


def bwrap_problem(bwrap: str = "bwrap") -> str | None:
    """Why `bwrap` cannot box a command here; None when it can."""
    return _problem(bwrap, os.environ.get("PATH"))


@functools.cache
def _problem(bwrap: str, search_path: str | None) -> str | None:
    path = shutil.which(bwrap, path=search_path)
    if path is None:
        return f"bubblewrap ({bwrap}) is not installed"
    probe = [path, "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-pid", "--unshare-net"]
    try:
        done = subprocess.run(
            [*probe, "true"], capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap cannot start: {exc}"
    if done.returncode != 0:
        reason = done.stderr.strip().splitlines()[-1:] or [f"exit code {done.returncode}"]
        return f"bubblewrap cannot create namespaces here ({reason[0]})"
    return None
