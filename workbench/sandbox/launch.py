"""Starting one command in its box: the argument vector and environment to start it with, the
allow-list proxy for its lifetime, and what the box denied, said so the model can adapt.

Every runner of tool commands (the bash tool, a sweep's check) starts through `boxed`, so the
box is the same everywhere. `Grant` is the one way to run a command outside the box: it is made
only from an explicit user decision (a permission prompt's "run this once outside the box"),
carries who decided and why so the session can record it, and covers that one command.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from workbench.config import find_project_root
from workbench.errors import WorkbenchError
from workbench.sandbox.bwrap import bwrap_argv
from workbench.sandbox.detect import INSTALL_HINT
from workbench.sandbox.policy import SandboxPolicy
from workbench.sandbox.proxy import AllowListProxy

WRITE_DENIED = re.compile(r"Read-only file system", re.IGNORECASE)
NETWORK_DENIED = re.compile(
    r"Network is unreachable|Temporary failure in name resolution|Name or service not known|"
    r"Could not resolve host|No address associated with hostname|getaddrinfo failed|"
    r"Connection refused|Errno -3|Errno 101|Errno 111",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Grant:
    """The user's explicit permission to run one command outside the box, once."""

    command: str
    reason: str
    """What the user was shown and answered, for the session's record."""


@dataclass
class Boxed:
    """A command ready to start: `argv` and `env` to pass to the process, `policy` it runs under
    (`off` for an unboxed run), and the proxy whose refusals the result reports."""

    argv: list[str]
    env: dict[str, str]
    policy: SandboxPolicy
    proxy: AllowListProxy | None = None

    def denials(self, output: str) -> list[str]:
        """What the box denied, read from the command's output and the proxy's refusals."""
        if not self.policy.on:
            return []
        denied = []
        if WRITE_DENIED.search(output):
            denied.append(
                "write outside the project: the box's file system is read-only there (it "
                "writes only in the project, its private /tmp and sandbox.allow_write; hooks, "
                ".git/config, .pi/ and .mcp.json stay read-only)"
            )
        if self.proxy is not None and self.proxy.refused:
            denied.append("network: refused " + "; ".join(dict.fromkeys(self.proxy.refused)))
        elif not self.policy.networked and NETWORK_DENIED.search(output):
            via = " except the hosts in sandbox.network" if self.policy.network else ""
            denied.append(
                f"network: the box has no network{via}, so downloads (pip install, npm "
                "install) fail; the user can list hosts in sandbox.network or choose "
                "--sandbox workspace+net"
            )
        return denied


def working_tree(cwd: Path) -> Path:
    """The tree a command may write in: the project or worktree that holds `cwd`."""
    return find_project_root(cwd)


@asynccontextmanager
async def boxed(
    policy: SandboxPolicy,
    cwd: Path,
    argv: list[str],
    env: Mapping[str, str] | None = None,
    grant: Grant | None = None,
) -> AsyncIterator[Boxed]:
    """`argv` boxed by `policy` in `cwd`'s working tree; unboxed when the policy is off or the
    user granted this one command outside the box (`grant`)."""
    env = dict(os.environ if env is None else env)
    if not policy.on or grant is not None:
        yield Boxed(argv, env, SandboxPolicy(mode="off"))
        return
    if policy.unavailable:
        raise WorkbenchError(
            f"sandbox ({policy.mode}) refused to run the command: {policy.unavailable}",
            f"the user can {INSTALL_HINT}, or set sandbox.fallback to off",
        )
    proxy = None
    if policy.network and not policy.networked:
        proxy = await AllowListProxy(policy.network, policy.network_loopback).start()
    try:
        command = bwrap_argv(
            policy, working_tree(cwd), cwd, argv, proxy.socket_path if proxy else None
        )
        yield Boxed(command, policy.environment(env), policy, proxy)
    finally:
        if proxy is not None:
            await proxy.close()
