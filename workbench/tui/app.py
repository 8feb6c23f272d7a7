"""The Textual app: one screen with the chat, the skill graph, the conversation tree, the editor.

The first frame is drawn before anything slow happens: the session (skills, store, model) opens
in a worker afterwards, and a litellm model's calls are made by a process of their own
(`modes.app_start`), or, for one chosen later, litellm is imported in a background thread.
The app only calls `Workbench` methods and renders its events; each pane renders its own events
(`on_workbench_event`), the app wires keys, commands and dialogs.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.filter import LineFilter
from textual.markup import escape as escape_markup
from textual.reactive import reactive
from textual.screen import Screen
from textual.timer import Timer

from workbench.agent.events import AgentEnd, AgentStart, MessageEnd, TreeUpdate, TurnEnd
from workbench.enforcer.events import SkillsReloadedEvent
from workbench.errors import WorkbenchError
from workbench.logfile import log_path
from workbench.runtime.commands import AnyCommand
from workbench.sweeps.events import SweepEnd, SweepProgress, SweepStart
from workbench.tui import choices, slash
from workbench.tui.alt_enter import read_alt_enter
from workbench.tui.collector import Collector
from workbench.tui.components.completion_list import CompletionList
from workbench.tui.components.editor import PromptEditor
from workbench.tui.components.queue_list import QueueList
from workbench.tui.components.quick_pick import QuickPick
from workbench.tui.components.skill_panel import SkillPanel
from workbench.tui.components.status_bar import StatusBar
from workbench.tui.components.status_view import StatusView
from workbench.tui.components.text_prompt import TextPrompt
from workbench.tui.components.transcript import Transcript
from workbench.tui.components.tree_panel import TreePanel
from workbench.tui.components.typing import TypedAway, TypesToEditor, typed_character
from workbench.tui.composer import Composer
from workbench.tui.control_filter import VISIBLE_CONTROLS
from workbench.tui.controller import Controller
from workbench.tui.dialogs import DialogApp
from workbench.tui.permission_prompt import PermissionPrompt, asking_through
from workbench.tui.session_view import SessionView
from workbench.tui.sweep.board import SweepBoard
from workbench.tui.sweep.view import SweepView

if TYPE_CHECKING:
    from workbench.agent.subagents.settings import Confirm
    from workbench.runtime import Workbench
    from workbench.runtime.events import WorkbenchEvent
    from workbench.tui.items import NoteKind

log = logging.getLogger(__name__)
QUIT_WINDOW_S = 2.0
IDLE_HINT = "Message the agent · / for commands · Ctrl+P palette · F1 help"
BUSY_HINT = "Enter steers now · Ctrl+J (or Alt+Enter) queues a follow-up · Esc stops"
NARROW = 100
COLLECT_AFTER_S = 1.0
"""Full garbage collections, held while the agent runs, are let go this long after it ends:
the reply's last frames are drawn by then and the reader's eyes are on it."""
PANES = {"skills": "#skills", "tree": "#tree", "chat": "#chat", "editor": "#editor"}


class WorkbenchApp(DialogApp):
    """See the module docstring. `open_workbench(confirm)` opens the session after the first
    frame; `confirm` is the app's yes/no dialog, for the session to ask the user (project
    sub-agents)."""

    TITLE = "workbench"
    CSS_PATH = "app.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "interrupt", "Clear / quit", show=False, priority=True),
        Binding("escape", "abort", "Stop", show=False),
        Binding("f1", "command('help')", "Help", show=False),
        Binding("f2", "focus_pane('skills')", "Skills", show=False),
        Binding("f3", "focus_pane('tree')", "Tree", show=False),
        Binding("f4", "focus_pane('chat')", "Chat", show=False),
        Binding("f5", "command('approval')", "Approval", show=False),
    ]

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW, "-wide")]  # noqa: RUF012 (App's type)
    """Below `NARROW` columns the side panels fold away (see app.tcss)."""

    busy: reactive[bool] = reactive(False)

    def __init__(
        self,
        open_workbench: Callable[[Confirm], Awaitable[Workbench]],
        *,
        prompt: str | None = None,
        cursor_blink: bool = True,
        pictures: bool = False,
        keyboard_note: str | None = None,
    ) -> None:
        """`pictures`: stable screenshots (no durations, paths cut to their last part);
        `keyboard_note`: told once the session opens (a key this terminal cannot send)."""
        super().__init__()
        read_alt_enter()
        self._keyboard_note = keyboard_note
        self._open_workbench = open_workbench
        self._initial_prompt = prompt
        self._cursor_blink = cursor_blink
        self.pictures = pictures
        self.workbench: Workbench | None = None
        self.session = SessionView(self)
        self.controller = Controller(self, self.session)
        self.composer = Composer(self, self.controller.run)
        self._last_reply = ""
        self._last_interrupt = 0.0
        self._unsubscribe: Callable[[], None] = lambda: None
        self.opened = asyncio.Event()
        self.collector = Collector()
        self.sweep_board = SweepBoard()
        self._collector_release: Timer | None = None
        self.resume_hint = ""
        """How to come back to the session, told on the terminal after quitting."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="body"):
            yield Transcript(show_durations=not self.pictures, id="chat")
            with Vertical(id="side"):
                yield SkillPanel(id="skills")
                yield TreePanel(id="tree")
        with Vertical(id="bottom"):
            yield PermissionPrompt(id="permission")
            yield QuickPick(id="pick")
            yield CompletionList(id="completions")
            yield QueueList(id="queue")
            yield PromptEditor(self._complete, cursor_blink=self._cursor_blink, id="editor")
        yield StatusBar(id="status")

    def get_line_filters(self) -> list[LineFilter]:
        """Textual's filters, then ours: control characters are shown, never obeyed."""
        return [*super().get_line_filters(), VISIBLE_CONTROLS]

    def on_mount(self) -> None:
        self.editor.placeholder = IDLE_HINT
        self.editor.focus()
        self.call_after_refresh(self.open_session)

    # -- panes ------------------------------------------------------------------------------------

    @property
    def editor(self) -> PromptEditor:
        return self.query_one("#editor", PromptEditor)

    @property
    def transcript(self) -> Transcript:
        return self.query_one("#chat", Transcript)

    @property
    def status_bar(self) -> StatusBar:
        return self.query_one("#status", StatusBar)

    def focus_pane(self, pane: str) -> None:
        if pane in ("skills", "tree"):
            self.screen.add_class("-side-open")  # folded on a narrow screen: shown now
        self.query_one(PANES[pane]).focus()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """The side panels stay open (on a narrow screen) only while one of them has focus."""
        screen = event.widget.screen if event.widget.is_attached else None  # (a closed view)
        if screen is not None and screen.query("#side"):
            in_side = any(node.id == "side" for node in event.widget.ancestors)
            screen.set_class(in_side, "-side-open")

    def action_focus_pane(self, pane: str) -> None:
        self.focus_pane(pane)

    def act(self, action: Awaitable[None]) -> None:
        """Run a user's action in the background. A failure is told in the chat, never a crash:
        expected ones with their hint, unexpected ones with where the traceback was logged."""
        self.run_worker(self._guarded(action), group="actions")

    async def _guarded(self, action: Awaitable[None]) -> None:
        try:
            await action
        except WorkbenchError as exc:
            self.show_error(exc.message, exc.hint)
        except Exception as exc:
            log.exception("an action failed")
            self.show_error(
                f"that failed unexpectedly: {exc!r}", f"the traceback is in {log_path()}"
            )

    def note(self, kind: NoteKind, text: str, hint: str | None = None) -> None:
        self.transcript.note(kind, text, hint)

    def show_error(self, message: str, hint: str | None = None) -> None:
        self.transcript.note("error", message, hint)

    def export_screenshot(self, *, title: str | None = None, simplify: bool = False) -> str:
        """Textual's SVG with `xml:space="preserve"`: without it, renderers that follow the SVG
        rules (librsvg, so image viewers and converters) drop the space that starts a run of
        text in another style, and `demo (offline demo)` reads `demo(offline demo)`."""
        svg = super().export_screenshot(title=title, simplify=simplify)
        return svg.replace("<svg ", '<svg xml:space="preserve" ', 1)

    def show_path(self, path: str) -> str:
        if self.pictures:
            return "…/" + Path(path).name
        home = str(Path.home())
        return "~" + path[len(home) :] if path.startswith(home + "/") else path

    # -- opening the session ----------------------------------------------------------------------

    @work(exclusive=True, group="open")
    async def open_session(self) -> None:
        try:
            workbench = await self._open_workbench(self.confirm)
        except Exception as exc:
            if not isinstance(exc, WorkbenchError):
                log.exception("opening the session failed")
                exc = WorkbenchError(repr(exc), f"the traceback is in {log_path()}")
            self.show_error(f"Could not open the session: {exc.message}", exc.hint)
            self.status_bar.change(model="not opened")
            return
        self.workbench = workbench
        self._unsubscribe = workbench.subscribe(self.on_workbench_event)
        workbench.answer_permissions(asking_through(self.query_one(PermissionPrompt), self))
        await self.session.show_all()
        if self._keyboard_note:
            self.note("info", self._keyboard_note)
        self.opened.set()
        self._settle()
        await self.session.offer_trust()
        await self.composer.send_waiting()
        if self._initial_prompt:
            await self.composer.submit(self._initial_prompt, "send")

    def _settle(self) -> None:
        """Start-up's objects out of the garbage collector's sight, once litellm is imported."""
        from workbench.agent.models.litellm_client import preloaded

        Collector.settle_after(preloaded)

    # -- events -----------------------------------------------------------------------------------

    def on_workbench_event(self, event: WorkbenchEvent) -> None:
        """Every event of the session, in order, on the app's event loop."""
        self.transcript.on_workbench_event(event)
        self.status_bar.on_workbench_event(event)
        self.query_one(QueueList).on_workbench_event(event)
        self.query_one(SkillPanel).on_workbench_event(event)
        match event:
            case AgentStart():
                self.busy = True
                if self._collector_release is not None:
                    self._collector_release.stop()
                self.collector.hold()
                self.query_one(QuickPick).close()
            case MessageEnd(message=message) if message.role == "assistant":
                self._last_reply = message.text
            case MessageEnd(message=message) if message.role == "user":
                self.act(self.session.show_tree())  # the new entry, and "here" moved
            case TurnEnd():
                self.session.show_context()
            case AgentEnd():
                self.busy = False
                self._collector_release = self.set_timer(COLLECT_AFTER_S, self.collector.release)
                self._offer_choices(event.stop_reason)
                self.session.sync_skills()
                self.act(self.session.show_tree())
            case TreeUpdate() | SkillsReloadedEvent():
                self.act(self.session.changed(event))
            case SweepStart() | SweepProgress() | SweepEnd():
                self._sweep_changed(event)

    def _sweep_changed(self, event: SweepStart | SweepProgress | SweepEnd) -> None:
        """The board follows the sweep; its view opens as the sweep starts and is redrawn."""
        self.sweep_board.apply(event)
        view = next((s for s in self.screen_stack if isinstance(s, SweepView)), None)
        if view is not None:
            view.redraw(event.run["branch"] if isinstance(event, SweepProgress) else None)
        elif isinstance(event, SweepStart):
            self.show_sweep()
        if isinstance(event, SweepEnd):
            self.act(self.session.show_tree())  # the runs' entries

    def show_sweep(self) -> None:
        self.push_screen(SweepView(self.sweep_board))

    def _offer_choices(self, stop_reason: str) -> None:
        found = choices.find_choices(self._last_reply) if stop_reason == "completed" else None
        if found and self.workbench is not None and not any(self.workbench.queues().values()):
            self.query_one(QuickPick).offer(found)

    def watch_busy(self, busy: bool) -> None:
        self.editor.placeholder = BUSY_HINT if busy else IDLE_HINT

    # -- the editor -------------------------------------------------------------------------------

    def on_prompt_editor_submitted(self, message: PromptEditor.Submitted) -> None:
        self.act(self.composer.submit(message.text, message.kind))

    def on_prompt_editor_completions_changed(
        self, message: PromptEditor.CompletionsChanged
    ) -> None:
        self.query_one(CompletionList).show(message.completions, message.chosen)

    def on_prompt_editor_take_back(self) -> None:
        self.composer.take_back()

    def _complete(self, text: str) -> list[slash.Completion]:
        return slash.completions(
            text, self.session.commands(), self.session.candidates, self.session.skill_commands()
        )

    # -- quick pick -------------------------------------------------------------------------------

    def on_quick_pick_picked(self, message: QuickPick.Picked) -> None:
        self.editor.focus()
        self.act(self.composer.submit(message.answer, "send"))

    def on_quick_pick_dismissed(self, message: QuickPick.Dismissed) -> None:
        self.editor.focus()
        if message.typed:
            self.editor.insert(message.typed)

    # -- panels -----------------------------------------------------------------------------------

    async def on_event(self, event: events.Event) -> None:
        """A character typed in a panel or the chat: the editor takes the focus first, so that
        this key and the rest of its burst (an Enter too) are the editor's, in order."""
        if (
            isinstance(event, events.Key)
            and not event.is_forwarded
            and isinstance(self.focused, TypesToEditor)
            and typed_character(event) is not None
        ):
            self.set_focus(self.editor)
        await super().on_event(event)

    def on_typed_away(self, message: TypedAway) -> None:
        """A letter typed in a panel or a view: it is text, and goes to the editor."""
        self.editor.focus()
        self.editor.insert(message.character)

    def on_skill_panel_opened(self, message: SkillPanel.Opened) -> None:
        self.session.open_skill(message.skill)

    def on_skill_panel_activation_requested(self, message: SkillPanel.ActivationRequested) -> None:
        command = "activate" if message.activate else "deactivate"
        self.act(self.controller.run(command, message.skill))

    def on_tree_panel_requested(self, message: TreePanel.Requested) -> None:
        self.act(self.controller.tree_request(message.action, message.target))

    def on_status_view_diff_requested(self, message: StatusView.DiffRequested) -> None:
        self.act(self.controller.show_diff(message.branch, message.path))

    def on_sweep_view_requested(self, message: SweepView.Requested) -> None:
        self.act(self.controller.sweep_request(message.action, message.branch))

    # -- keys -------------------------------------------------------------------------------------

    async def action_abort(self) -> None:
        """Esc: stop the run, queued messages back to the editor (idle: back to the editor)."""
        await self.composer.abort()

    def action_interrupt(self) -> None:
        """Ctrl+C, in its place among the keys typed before it: the editor's queue runs it
        after them, so a burst's text is in the editor when Ctrl+C looks at it."""
        self.editor.call_later(self._interrupt)

    async def _interrupt(self) -> None:
        """Clear a non-empty editor (Ctrl+Z brings it back); else stop a run, as Esc does; else,
        pressed twice within `QUIT_WINDOW_S`, quit."""
        if self.editor.text:
            self._last_interrupt = 0.0
            self.editor.take_text()
            self._tell("Cleared: Ctrl+Z brings it back")
        elif self.workbench is not None and self.workbench.state().busy:
            self._last_interrupt = 0.0
            await self.composer.abort()
        elif time.monotonic() - self._last_interrupt < QUIT_WINDOW_S:
            await self.quit_app()
        else:
            self._last_interrupt = time.monotonic()
            self._tell("Ctrl+C again quits")

    def _tell(self, message: str) -> None:
        """A short notice in the footer, gone after `QUIT_WINDOW_S` unless another replaced it."""
        self.status_bar.change(message=message)

        def expire() -> None:
            if self.status_bar.footing.message == message:
                self.status_bar.change(message="")

        self.set_timer(QUIT_WINDOW_S, expire)

    def action_command(self, name: str) -> None:
        self.act(self.controller.run(name))

    async def quit_app(self) -> None:
        await self._close_session()
        self.exit(0)

    async def action_quit(self) -> None:
        """Ctrl+Q (Textual's quit key) closes the session first, like /quit."""
        await self.quit_app()

    async def on_unmount(self) -> None:
        self.collector.release()
        await self._close_session()

    async def _close_session(self) -> None:
        """Stop any run and close the session (its lock, its git helpers), once."""
        workbench, self.workbench = self.workbench, None
        if workbench is not None:
            self._unsubscribe()
            if workbench.current.session is not None and workbench.current.store.path():
                session_id = workbench.current.store.session_id
                self.resume_hint = (
                    f"Session {session_id} is saved: workbench -c continues it "
                    f"(or workbench --session {session_id})."
                )
            await workbench.close()

    # -- the command palette ----------------------------------------------------------------------

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        for c in slash.commands():  # escaped: `[remote]` is no style to the palette
            yield SystemCommand(escape_markup(c.usage), c.help, lambda c=c: self._palette_run(c))
        yield from super().get_system_commands(screen)

    def _palette_run(self, command: AnyCommand) -> None:
        self.act(self._palette_command(command))

    async def _palette_command(self, command: AnyCommand) -> None:
        args = ""
        if command.args and not command.picks:
            answer = await self.ask(
                TextPrompt(command.usage, command.help, allow_empty=not command.needs_argument)
            )
            if answer is None:
                return
            args = answer
        await self.controller.run(command.name, args)
