"""Who git commits are attributed to.

Conversation entries are workbench's own bookkeeping: they use the user's git identity when one is
configured, else a fixed fallback, so a fresh machine (or a test with an empty HOME) still works.
Commits of the user's files (`commit`, `merge`) enter the user's history and may be pushed, so
workbench never invents an author for them: with no identity configured they fail and say how to
set one.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from workbench.errors import WorkbenchError
from workbench.sessions.store.gitcmd import GitRunner


@dataclass(frozen=True)
class Identity:
    """A git author/committer."""

    name: str
    email: str

    def env(self) -> dict[str, str]:
        """The environment that makes git use this identity."""
        return {
            "GIT_AUTHOR_NAME": self.name,
            "GIT_AUTHOR_EMAIL": self.email,
            "GIT_COMMITTER_NAME": self.name,
            "GIT_COMMITTER_EMAIL": self.email,
        }


FALLBACK_IDENTITY = Identity("workbench", "workbench@localhost")
"""The author of conversation entries when the user has no git identity."""


def configured_identity(git: GitRunner) -> Identity | None:
    """The identity git would use from the environment or config, or None when incomplete."""
    return _begin_configured(git)()


def _begin_configured(git: GitRunner) -> Callable[[], Identity | None]:
    """`configured_identity`, its git (if one is needed) started now; the call returned waits
    for it."""
    name = os.environ.get("GIT_COMMITTER_NAME", "").strip()
    email = os.environ.get("GIT_COMMITTER_EMAIL", "").strip()
    if name and email:
        return lambda: Identity(name, email)
    listing = git.begin("config", "-z", "--get-regexp", r"^user\.(name|email)$")

    def identity() -> Identity | None:
        config = _user_config(listing().stdout)
        found = (name or config.get("user.name", ""), email or config.get("user.email", ""))
        return Identity(*found) if all(found) else None

    return identity


def _user_config(listed: str) -> dict[str, str]:
    """`user.name` and `user.email` as `git config --get` reads each (the last value wins),
    both from one git process's `--get-regexp` listing."""
    found: dict[str, str] = {}
    for item in listed.split("\0"):
        key, _, value = item.partition("\n")
        if key:
            found[key] = value.strip()
    return found


def conversation_identity(git: GitRunner) -> Identity:
    """The identity for conversation entries: the user's, or the fallback."""
    return begin_conversation_identity(git)()


def begin_conversation_identity(git: GitRunner) -> Callable[[], Identity]:
    """`conversation_identity`, its git started now, beside other work; the call returned waits
    for it."""
    configured = _begin_configured(git)
    return lambda: configured() or FALLBACK_IDENTITY


def require_user_identity(git: GitRunner) -> None:
    """Fail clearly before committing the user's files when git does not know who they are."""
    if configured_identity(git) is None:
        raise WorkbenchError(
            f"git has no identity to commit your files with in {git.directory}",
            'set one: git config --global user.name "Your Name" && '
            "git config --global user.email you@example.com",
        )
