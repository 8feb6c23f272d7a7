"""The app's dialogs, views and pickers: shown over the panes, answered, and the focus given back
to the editor (`#editor`) when they close, not to the panel that had it before."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Literal, TypeVar, overload

from textual.app import App
from textual.css.query import NoMatches

from workbench.tui.components.confirm import ConfirmDialog

if TYPE_CHECKING:
    from textual.screen import Screen, ScreenResultCallbackType
    from textual.widget import AwaitMount

T = TypeVar("T")


class DialogApp(App[int]):
    """`push_screen` as Textual's, with the focus back to the editor; `ask` and `confirm`."""

    if TYPE_CHECKING:  # App's own overloads: awaiting the result, or the screen's mounting

        @overload
        def push_screen(
            self,
            screen: Screen[T] | str,
            callback: ScreenResultCallbackType[T] | None = None,
            wait_for_dismiss: Literal[False] = False,
            *,
            mode: str | None = None,
        ) -> AwaitMount: ...

        @overload
        def push_screen(
            self,
            screen: Screen[T] | str,
            callback: ScreenResultCallbackType[T] | None = None,
            wait_for_dismiss: Literal[True] = True,
            *,
            mode: str | None = None,
        ) -> asyncio.Future[T]: ...

    def push_screen(
        self,
        screen: Screen[T] | str,
        callback: ScreenResultCallbackType[T] | None = None,
        wait_for_dismiss: bool = False,
        *,
        mode: str | None = None,
    ) -> AwaitMount | asyncio.Future[T]:
        """Every dialog, view and picker gives the focus back to the editor when it closes, not
        to the panel that had it before."""

        def then(result: T | None) -> None:
            if callback is not None:
                callback(result)
            self.call_after_refresh(self._focus_editor)

        if wait_for_dismiss:
            return super().push_screen(screen, then, wait_for_dismiss=True, mode=mode)
        return super().push_screen(screen, then, mode=mode)

    def _focus_editor(self) -> None:
        with contextlib.suppress(NoMatches):  # the app may be closing
            self.query_one("#editor").focus()

    async def ask(self, screen: Screen[T]) -> T | None:
        """Show a modal screen and wait for its answer (from any coroutine on the app's loop)."""
        answer: asyncio.Future[T | None] = asyncio.get_running_loop().create_future()
        self.push_screen(screen, callback=answer.set_result)
        return await answer

    async def confirm(self, title: str, message: str, yes: str = "Yes", no: str = "No") -> bool:
        """Ask a yes/no question; see `ConfirmDialog`. Safe to await from the agent's tools."""
        answer: bool | None = await self.ask(ConfirmDialog(title, message, yes, no))
        return bool(answer)
