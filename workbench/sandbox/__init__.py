"""The OS sandbox for the commands tools run (design.md §5b): one policy (`policy`), chosen
from settings, flags and the project's ask (`choice`), enforced by bubblewrap (`bwrap`, started
through `launch.boxed`) and by the file tools (`SandboxPolicy.check_read` / `check_write`); the
network by allow-list through our proxy (`proxy`, reached from the box by `bridge`). May import
`config` and `errors` only."""

from __future__ import annotations

from workbench.sandbox.choice import SandboxChoice, choose_sandbox
from workbench.sandbox.launch import Boxed, Grant, boxed
from workbench.sandbox.policy import MODES, Mode, SandboxPolicy, mode, narrowest

__all__ = [
    "MODES",
    "Boxed",
    "Grant",
    "Mode",
    "SandboxChoice",
    "SandboxPolicy",
    "boxed",
    "choose_sandbox",
    "mode",
    "narrowest",
]
