"""Running git commands for one directory, through GitPython's command wrapper.

Every git process runs in a session of its own (`start_new_session`), so a signal that kills the
workbench process group (a closed terminal, `kill -9 -PGID`) never stops git half-way through
writing an object, a ref or a worktree: git finishes its short critical section on its own.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    import git

ZERO_OID = "0" * 40


@dataclass(frozen=True)
class GitResult:
    """The outcome of a git command that may fail for an expected reason (exit status 1...)."""

    status: int
    stdout: str
    stderr: str


class GitRunner:
    """git commands in one directory, with an optional fixed environment (an identity)."""

    def __init__(self, directory: Path, env: dict[str, str] | None = None) -> None:
        import git

        self.directory = directory
        self._env = {"GIT_TERMINAL_PROMPT": "0", **(env or {})}
        self._git: git.Git = git.Git(str(directory))

    def with_env(self, env: dict[str, str]) -> GitRunner:
        """The same directory with extra environment variables."""
        return GitRunner(self.directory, {**self._env, **env})

    def run(self, *args: str, input: bytes | None = None, strip: bool = True) -> str:
        """Run `git ARGS`; a non-zero exit becomes a WorkbenchError quoting git's message."""
        result = self.try_run(*args, input=input, strip=strip)
        if result.status != 0:
            detail = (result.stderr or result.stdout).strip().splitlines()
            raise WorkbenchError(
                f"git {args[0]} failed in {self.directory}: "
                + (detail[-1] if detail else f"exit {result.status}"),
                "\n".join(detail[:-1][-5:]) or None,
            )
        return result.stdout

    def try_run(self, *args: str, input: bytes | None = None, strip: bool = True) -> GitResult:
        """Run `git ARGS` and return its status and output, whatever the status."""
        import git

        if not self.directory.is_dir():
            # GitPython would quietly run in the process's cwd instead.
            raise WorkbenchError(f"{self.directory} does not exist", "was it moved or deleted?")
        command = ["git", *args]
        try:
            if input is None:
                return self._execute(command, None, strip)
            with tempfile.TemporaryFile() as stdin:
                stdin.write(input)
                stdin.seek(0)
                return self._execute(command, stdin, strip)
        except git.GitCommandNotFound as exc:
            raise WorkbenchError(
                "git is not installed or not on PATH", "install git 2.38 or newer"
            ) from exc

    def _execute(self, command: list[str], stdin: BinaryIO | None, strip: bool) -> GitResult:
        status, out, err = self._git.execute(
            command,
            istream=stdin,
            with_extended_output=True,
            with_exceptions=False,
            env=self._env,
            strip_newline_in_stdout=strip,
            start_new_session=True,
        )
        return GitResult(int(status), str(out), str(err))

    def close(self) -> None:
        """Stop any persistent `cat-file` helper GitPython may have started."""
        self._git.clear_cache()
