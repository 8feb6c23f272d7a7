"""Approving edits and commands before they run: the `approval` setting and `--approval`.

`never` (the default) runs every tool call as the model asks; `edits` shows each edit and write
as its diff and waits for the user's yes, no or always (for the rest of the session); `all` asks
for commands (bash, sub-agents) too. A tool says what a call would do (`Tool.describe`); a call
of a tool that describes nothing is never asked about.

Only a front end with a user at it asks (`Approval.ask`, set by the app and by ACP). A headless
run (`-p`, JSON, RPC, sweeps, evals, sub-agents) never waits: it runs as `never`, unless the run
itself was started with `--approval edits|all` (`explicit`), which refuses what would need the
user. Every refusal is the call's error result, and it tells the model why.

`ApprovalControls` is how the runtime's front ends change it (`/approval`, the app's F5) and
hand in who answers (`answer_with`: the app's inline prompt, ACP's `session/request_permission`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from workbench.agent.events import AgentEvent, ApprovalChange
from workbench.config import Settings
from workbench.errors import WorkbenchError
from workbench.permission import ALLOW, ALWAYS, Asker, PermissionRequest

log = logging.getLogger(__name__)
ApprovalMode = Literal["never", "edits", "all"]
APPROVAL_MODES: tuple[ApprovalMode, ...] = ("never", "edits", "all")
ASKED_KINDS: dict[str, frozenset[str]] = {
    "never": frozenset(),
    "edits": frozenset({"edit"}),
    "all": frozenset({"edit", "command"}),
}
"""The kinds of request (`PermissionRequest.kind`) each mode asks the user about."""
WHAT = {"edit": ("edit", "applied"), "command": ("command", "run")}
REFUSED = (
    "Not {done}: the user refused this {what}. Do not try it again unchanged; ask the user what "
    "they want instead, or do something else."
)
REFUSED_HEADLESS = (
    "Not {done}: this run needs the user's approval for each {what} (--approval {mode}), and a "
    "headless run has no one to give it. Say what you would do instead."
)
REFUSED_FOR_MESSAGE = "Not {done}: the user sent a message instead of approving this {what}."


def approval_mode(value: object, source: str) -> ApprovalMode:
    """A validated mode (from the settings, a flag or a command); anything else is an error."""
    for mode in APPROVAL_MODES:
        if value == mode:
            return mode
    raise WorkbenchError(f"{source} is {value!r}", f"use one of: {', '.join(APPROVAL_MODES)}")


@dataclass
class Approval:
    """One session's approval: its mode, who answers (None: nobody, a headless run), and what the
    user allowed always this session (kinds of request)."""

    mode: ApprovalMode = "never"
    explicit: bool = False
    """The mode was asked for by this run (`--approval`): without anyone to ask, refuse."""
    ask: Asker | None = None
    always: set[str] = field(default_factory=set)

    def asks_about(self, kind: str) -> bool:
        return kind in ASKED_KINDS[self.mode] and kind not in self.always

    async def refusal(
        self, request: PermissionRequest, interrupted: Callable[[], Awaitable[object]]
    ) -> str | None:
        """None when the call may run; else why not, for the model. `interrupted()` ends the
        wait when the user sends a message instead of answering."""
        if not self.asks_about(request.kind):
            return None
        what, done = WHAT.get(request.kind, (request.kind, "run"))
        if self.ask is None:
            if not self.explicit:
                return None
            return REFUSED_HEADLESS.format(done=done, what=what, mode=self.mode)
        asking = asyncio.ensure_future(self.ask(request))
        message = asyncio.ensure_future(interrupted())
        try:
            await asyncio.wait({asking, message}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiting in (asking, message):
                if not waiting.done():
                    waiting.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await waiting
        if not asking.done() or asking.cancelled():
            return REFUSED_FOR_MESSAGE.format(done=done, what=what)
        if asking.exception() is not None:  # a front end's bug: no answer is a no
            log.error("asking for approval failed", exc_info=asking.exception())
            return REFUSED.format(done=done, what=what)
        answer = asking.result()
        if answer == ALWAYS:
            self.always.add(request.kind)
        if answer in (ALLOW, ALWAYS):
            return None
        return REFUSED.format(done=done, what=what)


def opening_approval(flag: str | None, settings: Settings) -> Approval:
    """The approval a session opens with: `--approval` (explicit), else the setting."""
    if flag is not None:
        return Approval(approval_mode(flag, "--approval"), explicit=True)
    return Approval(approval_mode(settings.get("approval", "never"), "setting approval"))


class ApprovalControls:
    """`approval` (the mode), `set_approval`, `cycle_approval`, and `answer_with` for front ends."""

    def __init__(self, approval: Approval, emit: Callable[[AgentEvent], None]) -> None:
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
