"""Running git commands for one directory, as plain subprocesses.

GitPython only spawned git here, and importing it costs about 0.1 s of every `workbench fork`
or `status`: git is run directly, the way GitPython did (messages in English: `LC_ALL=C`, stdin
from /dev/null, one trailing newline stripped, output decoded as file names are).

Every git process runs in a session of its own (`start_new_session`), so a signal that kills the
workbench process group (a closed terminal, `kill -9 -PGID`) never stops git half-way through
writing an object, a ref or a worktree: git finishes its short critical section on its own.

Our own plumbing (refs, objects, worktrees of the conversation tree) never runs a repository's
hooks, its fsmonitor or a signing program, and takes no optional locks: `SAFE_CONFIG` overrides
them on every command. Only what does what a user's own git command would (committing the user's
files, merging into the user's branch) runs the hooks that command would: `for_user_command()`.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from workbench.errors import DiskFull, WorkbenchError

ZERO_OID = "0" * 40
NO_SPACE = "No space left on device"
"""What git says (strerror of ENOSPC) when a write finds the disk full."""
NEARLY_FULL_BYTES = 1 << 20
"""Free space below which a failed git write is put down to a full disk: git does not always
say ENOSPC (`unable to write file`)."""


def _nearly_full(directory: Path) -> bool:
    try:
        found = os.statvfs(directory)
    except OSError:
        return False
    return found.f_bavail * found.f_frsize < NEARLY_FULL_BYTES


SAFE_CONFIG = (
    f"core.hooksPath={os.devnull}",
    "core.fsmonitor=false",
    "commit.gpgSign=false",
    "tag.gpgSign=false",
)
"""Overrides on our plumbing: no hooks, no fsmonitor program, no signing program."""


@dataclass(frozen=True)
class GitResult:
    """The outcome of a git command that may fail for an expected reason (exit status 1...)."""

    status: int
    stdout: str
    stderr: str


class GitRunner:
    """git commands in one directory, with an optional fixed environment (an identity).
    `hooks`: run the repository's hooks and config as the user's own git command would."""

    def __init__(
        self, directory: Path, env: dict[str, str] | None = None, *, hooks: bool = False
    ) -> None:
        self.directory = directory
        self.hooks = hooks
        self._env = {"GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", **(env or {})}

    def with_env(self, env: dict[str, str]) -> GitRunner:
        """The same directory with extra environment variables."""
        return GitRunner(self.directory, {**self._env, **env}, hooks=self.hooks)

    def with_config(self, key: str, value: str) -> GitRunner:
        """The same, with one more setting given to git through its environment
        (`GIT_CONFIG_COUNT`), after any the environment already gives it: a setting the user's
        environment injects (`safe.directory`, a filter) is kept."""
        env = {**os.environ, **self._env}
        try:
            count = int(env.get("GIT_CONFIG_COUNT", "0"))
        except ValueError:
            count = 0
        added = {
            "GIT_CONFIG_COUNT": str(count + 1),
            f"GIT_CONFIG_KEY_{count}": key,
            f"GIT_CONFIG_VALUE_{count}": value,
        }
        return self.with_env(added)

    def for_user_command(self) -> GitRunner:
        """The same, running hooks: for what does what the user's own git command would."""
        return GitRunner(self.directory, self._env, hooks=True)

    @property
    def environment(self) -> dict[str, str]:
        """The variables this runner adds to the process's environment (an identity...)."""
        return dict(self._env)

    def run(self, *args: str, input: bytes | None = None, strip: bool = True) -> str:
        """Run `git ARGS`; a non-zero exit becomes a WorkbenchError quoting git's message."""
        result = self.try_run(*args, input=input, strip=strip)
        self.check(args, result)
        return result.stdout

    def check(self, args: tuple[str, ...], result: GitResult) -> None:
        """Raise for a failed `git ARGS` what `run` raises: DiskFull, or git's message."""
        if result.status != 0 and (NO_SPACE in result.stderr or _nearly_full(self.directory)):
            raise DiskFull(str(self.directory))
        if result.status != 0:
            detail = (result.stderr or result.stdout).strip().splitlines()
            raise WorkbenchError(
                f"git {args[0]} failed in {self.directory}: "
                + (detail[-1] if detail else f"exit {result.status}"),
                "\n".join(detail[:-1][-5:]) or None,
            )

    def start(self, *args: str) -> subprocess.Popen[bytes]:
        """`git ARGS` as a process kept running, its stdin, stdout and stderr piped (a
        command that reads requests on stdin), set up as `run` sets up its commands."""
        return self._popen(args, subprocess.PIPE)

    def begin(self, *args: str) -> Callable[[], GitResult]:
        """Start `git ARGS` now, set up as `try_run` sets up its commands; the call returned
        waits for it and returns what `try_run` would have: for a git that can run beside
        another (each costs a few milliseconds, most of them starting)."""
        process = self._popen(args, subprocess.DEVNULL)

        def result() -> GitResult:
            with process:
                out, err = process.communicate()
            return _result(process.returncode, out, err, strip=True)

        return result

    def _popen(self, args: tuple[str, ...], stdin: int) -> subprocess.Popen[bytes]:
        if not self.directory.is_dir():
            raise WorkbenchError(f"{self.directory} does not exist", "was it moved or deleted?")
        try:
            return subprocess.Popen(
                self._command(args),
                cwd=self.directory,
                env=self._process_env(),
                stdin=stdin,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except FileNotFoundError as exc:
            raise WorkbenchError(
                "git is not installed or not on PATH", "install git 2.38 or newer"
            ) from exc

    def try_run(self, *args: str, input: bytes | None = None, strip: bool = True) -> GitResult:
        """Run `git ARGS` and return its status and output, whatever the status."""
        if not self.directory.is_dir():
            raise WorkbenchError(f"{self.directory} does not exist", "was it moved or deleted?")
        command = self._command(args)
        try:
            if input is None:
                return self._execute(command, None, strip)
            import tempfile  # only here: most commands (a whole fork's) give git no input

            with tempfile.TemporaryFile() as stdin:
                stdin.write(input)
                stdin.seek(0)
                return self._execute(command, stdin, strip)
        except FileNotFoundError as exc:
            raise WorkbenchError(
                "git is not installed or not on PATH", "install git 2.38 or newer"
            ) from exc

    def _command(self, args: tuple[str, ...]) -> list[str]:
        overrides = [] if self.hooks else [arg for item in SAFE_CONFIG for arg in ("-c", item)]
        return ["git", *overrides, *args]

    def _process_env(self) -> dict[str, str]:
        return {**os.environ, "LANGUAGE": "C", "LC_ALL": "C", **self._env}

    def _execute(self, command: list[str], stdin: BinaryIO | None, strip: bool) -> GitResult:
        done = subprocess.run(
            command,
            cwd=self.directory,
            env=self._process_env(),
            stdin=subprocess.DEVNULL if stdin is None else stdin,
            capture_output=True,
            start_new_session=True,
            check=False,
        )
        return _result(done.returncode, done.stdout, done.stderr, strip)


def _result(status: int, out: bytes, err: bytes, strip: bool) -> GitResult:
    """git's output as GitPython gave it: one trailing newline stripped (of stdout only when
    `strip`), decoded as file names are."""
    out = out[:-1] if strip and out.endswith(b"\n") else out
    return GitResult(status, os.fsdecode(out), os.fsdecode(err.removesuffix(b"\n")))
