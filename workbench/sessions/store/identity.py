"""Who git commits are attributed to.

Conversation entries are workbench's own bookkeeping: they use the user's git identity when one is
configured, else a fixed fallback, so a fresh machine (or a test with an empty HOME) still works.
Commits of the user's files (`commit`, `merge`) enter the user's history and may be pushed, so
workbench never invents an author for them: with no identity configured they fail and say how to
set one.
"""

from __future__ import annotations

import os
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
    """The identity git would use from the environment or config, or None when incomplete.
    The config is read by one git process for both keys (the last value of each wins, as with
    `git config --get`)."""
    name = os.environ.get("GIT_COMMITTER_NAME", "").strip()
    email = os.environ.get("GIT_COMMITTER_EMAIL", "").strip()
    if not (name and email):
        found = git.try_run("config", "--get-regexp", r"^user\.(name|email)$").stdout
        values = dict(line.partition(" ")[::2] for line in found.splitlines())
        name = name or values.get("user.name", "").strip()
        email = email or values.get("user.email", "").strip()
    return Identity(name, email) if name and email else None


def conversation_identity(git: GitRunner) -> Identity:
    """The identity for conversation entries: the user's, or the fallback."""
    return configured_identity(git) or FALLBACK_IDENTITY


def require_user_identity(git: GitRunner) -> None:
    """Fail clearly before committing the user's files when git does not know who they are."""
    if configured_identity(git) is None:
        raise WorkbenchError(
            f"git has no identity to commit your files with in {git.directory}",
            'set one: git config --global user.name "Your Name" && '
            "git config --global user.email you@example.com",
        )
