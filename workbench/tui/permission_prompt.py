"""The inline permission prompt: a request for the user's yes (`workbench.permission`), shown
above the editor, never a modal.

It shows what would happen (an edit's diff, a command) and takes the focus: each option's key
answers (`y` yes, `n` no, `a` always for this session), Esc says no, Up/Down and PgUp/PgDn
scroll a long diff. Every other key does what it always does: a letter is text for the editor
(the prompt stays; sending that text tells the agent what to do instead, which refuses the call),
F1-F4 and Ctrl+C work as anywhere. `asking_through` makes `ask` the session's `Asker`
(`answer_permissions`), with the footer and the call's row saying the run waits for the user.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from workbench.permission import Asker, PermissionRequest
from workbench.tui import palette
from workbench.tui.components.typing import TypedAway, typed_character

if TYPE_CHECKING:
    from workbench.tui.host import Host

LINE_STYLES = {"+": palette.SUCCESS_COLOUR, "-": palette.ERROR_COLOUR, "@": palette.PRIMARY}


def diff_text(detail: str) -> Text:
    """A request's detail, a diff's added and removed lines in colour."""
    text = Text()
    for line in detail.splitlines():
        style = "" if line.startswith(("+++", "---")) else LINE_STYLES.get(line[:1], "")
        text.append(line + "\n", style)
    text.rstrip()
    return text


def keys_text(request: PermissionRequest) -> Text:
    """The answers and their keys, then what else the user may do."""
    keys = Text()
    for option in request.options:
        keys.append(f"{option.key} ", f"bold {palette.PRIMARY}")
        keys.append(f"{option.label} · ")
    instead = " · or type to tell the agent what to do instead" if request.tool else ""
    keys.append(f"Esc no{instead}", palette.DIM)
    return keys


class PermissionPrompt(Vertical, can_focus=True):
    """See the module docstring. The title and the keys always show; a long detail scrolls."""

    DEFAULT_CSS = """
    PermissionPrompt {
        height: auto; padding: 0 1; border: round $warning; display: none;
    }
    PermissionPrompt.-shown { display: block; }
    PermissionPrompt #permission-title { text-style: bold; }
    PermissionPrompt #permission-detail { height: auto; max-height: 40vh; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "answer('reject')", "No", show=False, priority=True),
        Binding("up", "scroll(-1)", show=False),
        Binding("down", "scroll(1)", show=False),
        Binding("pageup", "scroll(-10)", show=False),
        Binding("pagedown", "scroll(10)", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Allow?"
        self._request: PermissionRequest | None = None
        self._answer: asyncio.Future[str] | None = None
        self._one_at_a_time = asyncio.Lock()

    def compose(self) -> ComposeResult:
        yield Static(id="permission-title")
        with VerticalScroll(id="permission-detail") as detail:
            detail.can_focus = False
            yield Static(id="permission-diff")
        yield Static(id="permission-keys")

    def shown(self) -> str:
        """What the prompt says, as plain text (title, detail, keys)."""
        parts = ("#permission-title", "#permission-diff", "#permission-keys")
        return "\n".join(str(self.query_one(part, Static).content) for part in parts)

    def action_scroll(self, lines: int) -> None:
        self.query_one("#permission-detail", VerticalScroll).scroll_relative(y=lines, animate=False)

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
            self.query_one("#permission-title", Static).update(Text(request.title))
            self.query_one("#permission-diff", Static).update(diff_text(request.detail))
            self.query_one("#permission-detail").display = bool(request.detail)
            self.query_one("#permission-keys", Static).update(keys_text(request))
            self.add_class("-shown")
            self.query_one("#permission-detail", VerticalScroll).scroll_home(animate=False)
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


def asking_through(prompt: PermissionPrompt, host: Host) -> Asker:
    """`prompt.ask`, with the call's row and the footer saying the run waits for the user
    (not "running…" or "working", counting seconds the user is being asked)."""

    async def ask(request: PermissionRequest) -> str:
        host.status_bar.change(asking=True)
        host.transcript.waiting(request.tool_call_id, True)
        try:
            return await prompt.ask(request)
        finally:
            host.status_bar.change(asking=False)
            host.transcript.waiting(request.tool_call_id, False)

    return ask
