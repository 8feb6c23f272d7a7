"""What a boxed command may see, write and reach: one policy that both enforcers follow.

The bubblewrap box (`workbench.sandbox.bwrap`) enforces it on the commands that tools run; the
read, edit and write tools check the same policy (`check_read`, `check_write`) in our own process.
Modes go from loosest to strictest: `off` (no box, as before), `workspace+net` (the whole file
system read-only, writes only in the working tree and a private temporary folder, network on),
`workspace` (the same, network off or through the allow-list proxy), `strict` (only the toolchains
and the working tree are visible). A run may always narrow a mode, never widen it (`narrowest`).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from workbench.errors import WorkbenchError

Mode = Literal["off", "workspace+net", "workspace", "strict"]
MODES: tuple[Mode, ...] = ("off", "workspace+net", "workspace", "strict")
"""Loosest first: a later mode is stricter."""
HOME_SECRETS = (
    ".ssh",
    ".aws",
    ".config/gcloud",
    ".netrc",
    ".docker/config.json",
    ".pi/agent",
    ".git-credentials",
)
"""Under the user's home: keys, cloud credentials and our own settings and keys."""
SYSTEM_SECRETS = ("/var/run/docker.sock", "/run/docker.sock")
SECRET_SUFFIXES = ("_API_KEY", "_TOKEN", "_SECRET")
"""Variables of our own process left out of a boxed command's environment (unless listed)."""
DROPPED_VARIABLES = ("SSH_AUTH_SOCK",)
READ_ONLY_INSIDE = (".git/hooks", ".git/config", ".git/workbench", ".pi", ".mcp.json")
"""Inside the working tree, what the command may read but not change: what would run our code
or the project's next time (hooks, git config, settings, MCP servers) and the session store."""
GIT_WRITABLE = ("objects", "refs", "logs", "packed-refs")
"""In a worktree's common git folder: what `git commit` in the worktree writes."""


def mode(value: object, origin: str) -> Mode:
    """`value` as a mode, or an error naming where it was written."""
    if value not in MODES:
        raise WorkbenchError(
            f"{origin}: unknown sandbox mode {value!r}", f"use one of {', '.join(MODES)}"
        )
    return value


def narrowest(*modes: Mode | None) -> Mode:
    """The strictest of the given modes (`off` when none is given)."""
    return max((m for m in modes if m is not None), key=MODES.index, default="off")


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


@dataclass(frozen=True)
class GitFolders:
    """A worktree's git folders outside it: the common folder, shown read-only (it may lie
    under a folder the box replaces, such as /tmp), and what `git commit` writes in it."""

    common: Path | None = None
    writable: tuple[Path, ...] = ()


def git_folders(root: Path) -> GitFolders:
    """For a worktree (`.git` is a file): the common git folder, and its own git folder plus the
    common folder's objects, refs and logs as writable; nothing for a plain checkout, whose
    `.git` folder lies inside the tree."""
    dot_git = root / ".git"
    if not dot_git.is_file():
        return GitFolders()
    try:
        line = dot_git.read_text(encoding="utf-8").partition("\n")[0]
    except OSError:
        return GitFolders()
    if not line.startswith("gitdir:"):
        return GitFolders()
    own = (root / line.removeprefix("gitdir:").strip()).resolve()
    try:
        common = (own / (own / "commondir").read_text(encoding="utf-8").strip()).resolve()
    except OSError:
        common = own
    shared = (common / name for name in GIT_WRITABLE)
    return GitFolders(common, (own, *(p for p in shared if p.exists())))


@dataclass(frozen=True)
class SandboxPolicy:
    """One run's box. `home` is the user's home as our process sees it (the hidden secrets
    are under it); `unavailable` says why a box that was asked for cannot run here."""

    mode: Mode = "off"
    home: Path = field(default_factory=Path.home)
    network: tuple[str, ...] = ()
    """Hosts the command may reach through our proxy while the network is otherwise off."""
    network_loopback: bool = False
    allow_read: tuple[Path, ...] = ()
    allow_write: tuple[Path, ...] = ()
    env: tuple[str, ...] = ()
    """Secret-looking variables the command still gets."""
    bwrap: str = "bwrap"
    unavailable: str | None = None
    hidden_extra: tuple[Path, ...] = ()
    """More paths to hide: our own key files and sockets (`agent_dir()` when moved)."""

    @property
    def on(self) -> bool:
        return self.mode != "off"

    @property
    def networked(self) -> bool:
        """Whether the command has the network directly (not only through the allow-list)."""
        return self.mode in ("off", "workspace+net")

    def label(self) -> str:
        """The mode as the footer and `/status` show it (a box that cannot run here keeps its
        mode: it refuses commands rather than run them unboxed)."""
        if self.network and not self.networked:
            return f"{self.mode}, net: {len(self.network)} hosts"
        return self.mode

    def hidden(self) -> list[Path]:
        """Secrets that exist, as written and with links followed."""
        candidates = [self.home / name for name in HOME_SECRETS]
        candidates += [Path(p) for p in SYSTEM_SECRETS] + list(self.hidden_extra)
        agent_sock = os.environ.get("SSH_AUTH_SOCK")
        if agent_sock:
            candidates.append(Path(agent_sock))
        found: list[Path] = []
        for path in candidates:
            for variant in (path, path.resolve()):
                if (variant.exists() or variant.is_symlink()) and variant not in found:
                    found.append(variant)
        return found

    def temp_folders(self) -> list[Path]:
        """Folders that are a private, empty temporary folder inside the box: `/tmp` and our
        own temporary folder (where the warm interpreter's socket and sub-agents' keys live)."""
        return list(dict.fromkeys([Path("/tmp"), Path(tempfile.gettempdir()).resolve()]))

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        """`env` without our secrets: `*_API_KEY`, `*_TOKEN`, `*_SECRET` unless in `env`."""
        kept = set(self.env)

        def secret(name: str) -> bool:
            upper = name.upper()
            return upper in DROPPED_VARIABLES or upper.endswith(SECRET_SUFFIXES)

        return {k: v for k, v in env.items() if k in kept or not secret(k)}

    # -- the file tools' enforcer ----------------------------------------------------------

    def check_read(self, path: Path) -> None:
        """Refuse a read of a hidden secret (links followed), when the box is on."""
        if not self.on:
            return
        real = path.resolve()
        for secret in self.hidden():
            if _inside(real, secret.resolve()) or _inside(path.absolute(), secret):
                if any(_inside(real, allowed.resolve()) for allowed in self.allow_read):
                    return
                raise WorkbenchError(
                    f"sandbox ({self.mode}): reading {path} is denied: it holds secrets "
                    "(keys, credentials) that the sandbox hides",
                    "work with files inside the project; the user may list the path in "
                    "sandbox.allow_read",
                )

    def check_write(self, path: Path, root: Path) -> None:
        """Refuse a write outside the working tree `root` (and `allow_write`), or to what stays
        read-only inside it, when the box is on."""
        if not self.on:
            return
        real = path.resolve()
        root = root.resolve()
        self.check_read(path)
        frozen = [root / name for name in READ_ONLY_INSIDE]
        if any(_inside(real, folder.resolve()) for folder in frozen):
            where = "is read-only inside the sandbox (hooks, git config, settings, MCP servers)"
        elif any(_inside(real, folder.resolve()) for folder in (root, *self.allow_write)):
            return
        else:
            where = f"is outside the project ({root})"
        raise WorkbenchError(
            f"sandbox ({self.mode}): writing {path} is denied: it {where}",
            "write inside the project; the user may list a folder in sandbox.allow_write",
        )
