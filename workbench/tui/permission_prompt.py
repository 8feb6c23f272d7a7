"""The inline permission prompt: a request for the user's yes (`workbench.permission`), shown
above the editor, never a modal.

It shows what would happen (an edit's diff, a command) and takes the focus: each option's key
answers (`y` yes, `n` no, `a` always for this session), Esc says no, Up/Down and PgUp/PgDn
scroll a long diff. Every other key does what it always does: a letter is text for the editor
(the prompt stays; sending that text tells the agent what to do instead, which refuses the call),
F1-F4 and Ctrl+C work as anywhere. `ask` is the session's `Asker` (`answer_permissions`).
"""

from __future__ import annotations

import asyncio
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from workbench.permission import PermissionRequest
from workbench.tui import palette
from workbench.tui.components.typing import TypedAway, typed_character

LINE_STYLES = {"+": palette.SUCCESS_COLOUR, "-": palette.ERROR_COLOUR, "@": palette.PRIMARY}


def request_body(request: PermissionRequest) -> RenderableType:
    """The request as the prompt shows it: its title, its detail (a diff in colour), its keys."""
    title = Text(request.title, "bold")
    detail = Text()
    for line in request.detail.splitlines():
        style = "" if line.startswith(("+++", "---")) else LINE_STYLES.get(line[:1], "")
        detail.append(line + "\n", style)
    keys = Text()
    for option in request.options:
        keys.append(f"{option.key} ", f"bold {palette.PRIMARY}")
        keys.append(f"{option.label} · ")
    keys.append("Esc no · or type to tell the agent what to do instead", palette.DIM)
    detail.rstrip()
    return Group(title, detail, keys) if detail.plain else Group(title, keys)


class PermissionPrompt(VerticalScroll, can_focus=True):
    """See the module docstring."""

    DEFAULT_CSS = """
    PermissionPrompt {
        height: auto; max-height: 60%; padding: 0 1; border: round $warning; display: none;
    }
    PermissionPrompt.-shown { display: block; }
    PermissionPrompt:focus { border: round $warning; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "answer('reject')", "No", show=False, priority=True),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Allow?"
        self._request: PermissionRequest | None = None
        self._answer: asyncio.Future[str] | None = None
        self._one_at_a_time = asyncio.Lock()

    def compose(self) -> list[Widget]:
        return [Static(id="permission-body")]

    @property
    def request(self) -> PermissionRequest | None:
        """The request on show, or None."""
        return self._request

    async def ask(self, request: PermissionRequest) -> str:
        """Show `request` until the user answers; the chosen option's id. When the question
        goes away unanswered (the run stopped, the user sent a message), the prompt goes too."""
        async with self._one_at_a_time:
            before = self.app.focused
            self._request = request
            self._answer = asyncio.get_running_loop().create_future()
            self.query_one("#permission-body", Static).update(request_body(request))
            self.add_class("-shown")
            self.scroll_home(animate=False)
            self.focus()
            try:
                return await self._answer
            finally:
                self._request = self._answer = None
                self.remove_class("-shown")
                focused = self.screen.focused if self.is_attached else self
                if focused in (None, self) and before not in (None, self) and before.is_attached:
                    before.focus()

    def action_answer(self, option_id: str) -> None:
        if self._answer is not None and not self._answer.done():
            self._answer.set_result(option_id)

    def on_key(self, event: events.Key) -> None:
        if self._request is None:
            return
        character = typed_character(event)
        if character is None:
            return
        event.stop()
        chosen = next((o for o in self._request.options if o.key == character), None)
        if chosen is not None:
            self.action_answer(chosen.id)
        else:  # the user's words: the editor takes them; the question stays
            self.post_message(TypedAway(character))
