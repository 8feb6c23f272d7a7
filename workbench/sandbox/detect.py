"""Whether bubblewrap can box commands here: found on the PATH, and able to make the
namespaces it needs (some containers forbid them). Probed once per process."""

from __future__ import annotations

import functools
import shutil
import subprocess

INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install "
    "bubblewrap), or choose --sandbox off"
)
PROBE_TIMEOUT_S = 20


@functools.cache
def bwrap_problem(bwrap: str = "bwrap") -> str | None:
    """Why `bwrap` cannot box a command here; None when it can."""
    path = shutil.which(bwrap)
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
