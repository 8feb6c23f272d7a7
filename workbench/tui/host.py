"""What the app's helpers (composer, controller, session view) may ask of the app.

A narrow interface instead of the whole `WorkbenchApp`: the helpers sit below the app and never
import it, and a reader sees at a glance what each one can touch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeVar

from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.widget import Widget

    from workbench.runtime import Workbench
    from workbench.tui.components.editor import PromptEditor
    from workbench.tui.components.status_bar import StatusBar
    from workbench.tui.components.transcript import Transcript
    from workbench.tui.items import NoteKind
    from workbench.tui.sweep_board import SweepBoard

T = TypeVar("T")
W = TypeVar("W", bound="Widget")


class Host(Protocol):
    """The app as its helpers see it: the open session, the panes, notes and dialogs."""

    workbench: Workbench | None
    sweep_board: SweepBoard

    @property
    def editor(self) -> PromptEditor: ...

    @property
    def transcript(self) -> Transcript: ...

    @property
    def status_bar(self) -> StatusBar: ...

    def query_one(self, selector: type[W]) -> W: ...

    def focus_pane(self, pane: str) -> None: ...

    def note(self, kind: NoteKind, text: str, hint: str | None = None) -> None: ...

    def show_error(self, message: str, hint: str | None = None) -> None: ...

    def show_path(self, path: str) -> str: ...

    def push_screen(self, screen: Screen[T]) -> object: ...

    async def ask(self, screen: Screen[T]) -> T | None: ...

    async def confirm(self, title: str, message: str, yes: str = "Yes", no: str = "No") -> bool: ...

    def show_sweep(self) -> None: ...

    async def quit_app(self) -> None: ...


def opened(host: Host) -> Workbench:
    """The host's open session; a command given before it opened is told to wait."""
    if host.workbench is None:
        raise WorkbenchError("the session is still opening", "try again in a moment")
    return host.workbench
