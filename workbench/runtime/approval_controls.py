"""The session's approval of edits and commands, as the front ends change and answer it.

The mode comes from `--approval` when the run was started with it (then a run with no one to
ask refuses what would need approval), else from the `approval` setting (then a headless run
simply never waits). `/approval` and the app's key cycle or set it; the front end that has a
user at it hands in how to ask them (`answer_with`): the app's inline prompt, ACP's
`session/request_permission`. See `workbench.agent.approval`.
"""

from __future__ import annotations

from collections.abc import Callable

from workbench.agent.approval import APPROVAL_MODES, Approval, ApprovalMode, approval_mode
from workbench.agent.events import ApprovalChange
from workbench.config import Settings
from workbench.permission import Asker
from workbench.runtime.events import WorkbenchEvent


def opening_approval(flag: str | None, settings: Settings) -> Approval:
    """The approval a session opens with: `--approval` (explicit), else the setting."""
    if flag is not None:
        return Approval(approval_mode(flag, "--approval"), explicit=True)
    return Approval(approval_mode(settings.get("approval", "never"), "setting approval"))


class ApprovalControls:
    """`approval` (the mode), `set_approval`, `cycle_approval`, and `answer_with` for front ends."""

    def __init__(self, approval: Approval, emit: Callable[[WorkbenchEvent], None]) -> None:
        self._approval = approval
        self._emit = emit

    @property
    def approval(self) -> ApprovalMode:
        return self._approval.mode

    def set_approval(self, mode: str) -> ApprovalMode:
        """Set the mode (from the next tool call on); asked for here, it counts as the run's own
        choice: a front end with no one to ask then refuses what would need approval."""
        self._approval.mode = approval_mode(mode, "approval")
        self._approval.explicit = True
        self._emit(ApprovalChange(self._approval.mode))
        return self._approval.mode

    def cycle_approval(self) -> ApprovalMode:
        """The next mode: never, edits, all, never..."""
        index = APPROVAL_MODES.index(self._approval.mode)
        return self.set_approval(APPROVAL_MODES[(index + 1) % len(APPROVAL_MODES)])

    def answer_with(self, ask: Asker | None) -> None:
        """How to ask the user (None: no one can answer; nothing waits)."""
        self._approval.ask = ask
