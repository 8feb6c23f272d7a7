"""Asking the user's permission: one request, answered by whichever front end the user sits at.

Whatever needs the user's yes before it happens asks through this: an edit or a command waiting
for approval (`workbench.agent.approval`), a command the sandbox would run outside its box once.
The request says what would happen (`title`, and `detail`: a diff or a command) and which answers
there are (`options`); the front end shows it and returns the chosen option's id: the app as an
inline prompt above the editor (its keys are the options' `key`), an editor over ACP as
`session/request_permission`. A headless run has no one to ask (`Asker` is None) and never waits.

    request = PermissionRequest("command", "bash", "Run outside the sandbox once?", "curl …",
                                options=ONCE_OR_NO)
    answer = await ask(request)          # "allow", "reject" (or "always")
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

OptionKind = Literal["allow_once", "allow_always", "reject_once"]
"""What an option means (ACP's permission option kinds use the same words)."""
ALLOW, ALWAYS, REJECT = "allow", "always", "reject"


@dataclass(frozen=True)
class PermissionOption:
    """One answer: its id (what `ask` returns), the key that picks it in the app, its label."""

    id: str
    key: str
    label: str
    kind: OptionKind


YES = PermissionOption(ALLOW, "y", "yes", "allow_once")
NO = PermissionOption(REJECT, "n", "no", "reject_once")
ONCE_OR_NO = (YES, NO)
"""For what may happen once only (a command outside the sandbox)."""


def always(what: str) -> PermissionOption:
    """The answer that stops the question for the rest of the session: `what` says for what."""
    return PermissionOption(ALWAYS, "a", f"always allow {what} this session", "allow_always")


@dataclass(frozen=True)
class PermissionRequest:
    """What would happen, for the user to allow or refuse.

    `kind` names the sort of request (`edit`, `command`, `outside_sandbox`, `restore_files`...);
    `tool` and `tool_call_id` the tool call it belongs to ("" for none); `title` is one line;
    `detail` the whole of it as plain text (a unified diff, a command). For a file change, `path`
    (absolute) and the file's `old_text` and `new_text` let an editor draw its own diff."""

    kind: str
    tool: str
    title: str
    detail: str = ""
    options: tuple[PermissionOption, ...] = ONCE_OR_NO
    tool_call_id: str = ""
    path: str | None = None
    old_text: str | None = None
    new_text: str | None = None

    def option(self, option_id: str) -> PermissionOption:
        """The option with `option_id`; an answer that is not one of them counts as no."""
        return next((o for o in self.options if o.id == option_id), NO)


Asker = Callable[[PermissionRequest], Awaitable[str]]
"""Shows a request to the user and returns the id of the option they chose (`reject` when the
question went away unanswered)."""
