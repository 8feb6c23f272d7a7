"""The chat pane: the conversation of the current branch, live while the agent works.

Finished turns live in one `History` widget (a few cheap lines per entry, expandable); the turn
in progress and the last one are live rows: a `ReplyView` per streamed reply, an `ItemRow` per
user message, tool call or note. When a run ends, rows before the last turn fold into the history,
so the number of mounted widgets (and of Markdown widgets above all) stays small however long the
session grows. Up/Down select an entry, Enter expands it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, TypeAlias, TypeVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.geometry import Region

from workbench.agent.events import (
    AgentEnd,
    CompactionEnd,
    CompactionStart,
    ErrorEvent,
    MessageEnd,
    MessageUpdate,
    Notice,
    RetryEnd,
    RetryStart,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
)
from workbench.tui.components.history import History
from workbench.tui.components.item_row import ItemRow
from workbench.tui.components.typing import TypesToEditor
from workbench.tui.items import (
    Item,
    ItemBuilder,
    NoteItem,
    NoteKind,
    ReplyItem,
    ThinkingItem,
    ToolItem,
    UserItem,
    finish_tool,
)
from workbench.tui.laid_out import laid_out_size

if TYPE_CHECKING:
    from workbench.messages import Message
    from workbench.runtime.events import WorkbenchEvent
    from workbench.tui.components.reply import ReplyView

Row: TypeAlias = "ReplyView | ItemRow[Item]"
"""A live row of the chat: a reply, or a user message, tool call or note."""

ShownItem = TypeVar("ShownItem", bound=Item)
LIVE_ROWS = 30
"""Rows kept mounted after a run; a run longer than twice this folds as it goes."""


class Transcript(TypesToEditor, VerticalScroll, can_focus=True):
    """See the module docstring. Feed it events with `on_workbench_event`."""

    DEFAULT_CSS = """
    Transcript { padding: 0 1; }
    Transcript > ReplyView { margin: 1 0; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", "Previous entry", show=False),
        Binding("down", "move(1)", "Next entry", show=False),
        Binding("enter", "expand", "Expand / collapse", show=False),
        Binding("home", "first", "First entry", show=False),
        Binding("end", "last", "Last entry", show=False),
    ]
    virtual_size = laid_out_size()

    def __init__(self, *, show_durations: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self.show_durations = show_durations
        self.history = History()
        self.live: list[Row] = []
        self.selected: int | None = None
        self._reply: ReplyView | None = None
        self._tools: dict[str, ItemRow[ToolItem]] = {}
        self._notes: dict[str, ItemRow[NoteItem]] = {}
        self._thinking: ItemRow[ThinkingItem] | None = None
        self.position: tuple[int, str | None] = (0, None)
        """How many of the branch's messages are shown, and the last one's id."""

    def compose(self) -> ComposeResult:
        yield self.history

    def on_mount(self) -> None:
        self.anchor()
        if self.show_durations:
            self.set_interval(1.0, self._tick_running_tools)

    def _tick_running_tools(self) -> None:
        """Running tools show how long they have run: their rows redraw once a second."""
        for row in self._tools.values():
            row.changed()

    # -- building -----------------------------------------------------------------------------

    def load(self, messages: list[Message]) -> None:
        """Show a branch's messages: all but the last turn as history, the last turn live."""
        builder = ItemBuilder(show_duration=self.show_durations)
        for message in messages:
            builder.add_message(message)
        items = builder.items
        self.position = (len(messages), messages[-1].id if messages else None)
        last_user = max((i for i, it in enumerate(items) if isinstance(it, UserItem)), default=0)
        start = max(last_user, len(items) - LIVE_ROWS)
        self._clear()
        self.history.extend(items[:start])
        for item in items[start:]:
            self._add_row(item)
        self.scroll_end(animate=False)
        self.anchor()

    def _clear(self) -> None:
        for row in self.live:
            row.remove()
        self.live, self._tools, self._notes = [], {}, {}
        self._reply = self._thinking = None
        self.selected = None
        self.history.clear()

    def _add_row(self, item: Item) -> None:
        """A recorded reply as its Markdown view, anything else as an item row."""
        if isinstance(item, ReplyItem):
            from workbench.tui.components.reply import ReplyView

            reply = ReplyView(item)
            reply.finished = True
            self._mount(reply)
        else:
            self._add_item(item)

    def _add_item(self, item: ShownItem) -> ItemRow[ShownItem]:
        row = ItemRow(item)
        self._mount(row)
        return row

    def _mount(self, row: Row) -> None:
        self.live.append(row)
        self.mount(row)

    def note(
        self, kind: NoteKind, text: str, hint: str | None = None, key: str | None = None
    ) -> None:
        """Add a note (or update the note filed under `key`)."""
        if key is not None and key in self._notes:
            filed = self._notes[key]
            filed.item = NoteItem(kind, text, hint)
            filed.changed()
            return
        row = self._add_item(NoteItem(kind, text, hint))
        if key is not None:
            self._notes[key] = row

    def fold(self, keep: int) -> None:
        """Move finished rows into the history until at most `keep` remain live."""
        count = 0
        for row in self.live[: max(len(self.live) - keep, 0)]:
            if not self._finished(row):
                break
            count += 1
        if not count:
            return
        folded, self.live = self.live[:count], self.live[count:]
        self.history.extend(row.item for row in folded)
        self._tools = {k: v for k, v in self._tools.items() if v not in folded}
        self._notes = {k: v for k, v in self._notes.items() if v not in folded}
        for row in folded:
            row.remove()

    @staticmethod
    def _finished(row: Row) -> bool:
        if isinstance(row, ItemRow):
            return not isinstance(row.item, ToolItem) or row.item.status != "running"
        return row.finished

    # -- events -------------------------------------------------------------------------------

    def on_workbench_event(self, event: WorkbenchEvent) -> None:
        match event:
            case MessageUpdate():
                self._on_message_update(event)
            case MessageEnd():
                self._on_message_end(event)
            case ToolExecutionStart():
                self._on_tool_execution_start(event)
            case ToolExecutionUpdate():
                self._on_tool_execution_update(event)
            case ToolExecutionEnd():
                self._on_tool_execution_end(event)
            case AgentEnd():
                self._on_agent_end(event)
            case ErrorEvent():
                self.note("error", event.message, event.hint)
            case Notice():
                self.note("warning" if event.level == "warning" else "info", event.text)
            case RetryStart():
                self._on_retry_start(event)
            case RetryEnd():
                self._on_retry_end(event)
            case CompactionStart():
                self._on_compaction_start(event)
            case CompactionEnd():
                self._on_compaction_end(event)

    def _current_reply(self) -> ReplyView:
        if self._reply is None:
            from workbench.tui.components.reply import ReplyView

            self._reply = ReplyView(ReplyItem())
            self.live.append(self._reply)
            self.mount(self._reply)
        return self._reply

    def _on_message_update(self, event: MessageUpdate) -> None:
        if event.delta_type == "text":
            self._current_reply().append_text(event.delta)
        elif event.delta_type == "thinking":
            self._think(event.delta)

    def _think(self, delta: str) -> None:
        """Thinking shows as one dim row above the reply (its latest line; Enter shows all)."""
        if self._thinking is None:
            self._thinking = self._add_item(ThinkingItem())
        self._thinking.item.text += delta
        self._thinking.changed()

    def shows(self, messages: list[Message]) -> bool:
        """Whether these are the messages shown (a tree change may leave them as they were)."""
        return self.position == (len(messages), messages[-1].id if messages else None)

    def _shown(self, message: Message) -> None:
        self.position = (self.position[0] + 1, message.id)

    def _on_message_end(self, event: MessageEnd) -> None:
        message = event.message
        self._shown(message)
        if message.role == "assistant":
            self._end_reply(message)
        elif message.role in ("user", "notice", "compaction", "branch_summary"):
            builder = ItemBuilder(show_duration=self.show_durations)
            builder.add_message(message)
            for item in builder.items:
                self._add_row(item)
        if message.role == "user":
            self.scroll_end(animate=False)
            self.anchor()

    def _end_reply(self, message: Message) -> None:
        """The reply is recorded. A reply with text keeps its thinking in its record (the
        thinking row goes); one with thinking only keeps the thinking row."""
        reply, thinking = self._reply, self._thinking
        self._reply = self._thinking = None
        shown = message.text or message.stop_reason in ("aborted", "error")
        if shown and thinking is not None:
            self._drop(thinking)
        if reply is None and shown:
            reply = self._current_reply()
            self._reply = None
        if reply is None:
            return
        if not shown:
            self._drop(reply)
            return
        reply.item.thinking = message.thinking
        error = message.details.get("error")
        reply.call_later(reply.end, message.text, message.stop_reason, error)

    def _drop(self, row: Row) -> None:
        self.live.remove(row)
        row.remove()

    def _on_tool_execution_start(self, event: ToolExecutionStart) -> None:
        item = ToolItem(event.tool_call_id, event.tool_name, dict(event.args))
        item.show_duration = self.show_durations
        self._tools[event.tool_call_id] = self._add_item(item)

    def waiting(self, call_id: str, waiting: bool) -> None:
        """The call `call_id` waits for the user's answer (or no longer does)."""
        row = self._tools.get(call_id)
        if row is not None:
            row.item.waiting = waiting
            row.changed()

    def _on_tool_execution_update(self, event: ToolExecutionUpdate) -> None:
        row = self._tools.get(event.tool_call_id)
        if row is not None:
            row.item.output = event.partial_result
            row.changed()

    def _on_tool_execution_end(self, event: ToolExecutionEnd) -> None:
        row = self._tools.pop(event.tool_call_id, None)
        if row is None:
            return
        item = row.item
        item.args = dict(event.args)
        result = event.result
        finish_tool(item, result.text, result.is_error, result.details, event.skipped)
        item.duration_ms = None if event.skipped else event.duration_ms
        row.changed()
        if len(self.live) > 2 * LIVE_ROWS:
            self.fold(LIVE_ROWS)

    def _on_agent_end(self, event: AgentEnd) -> None:
        if event.stop_reason == "aborted":
            self.note("warning", "Stopped.")
        last_user = max(
            (i for i, row in enumerate(self.live) if isinstance(row.item, UserItem)),
            default=0,
        )
        self.fold(min(len(self.live) - last_user, LIVE_ROWS))

    def _on_retry_start(self, event: RetryStart) -> None:
        hint = "Esc stops the run; your message stays in the history"
        self.note("warning", event.text(), hint, "retry")

    def _on_retry_end(self, event: RetryEnd) -> None:
        self.note("info" if event.success else "error", event.text(), key="retry")
        self._notes.pop("retry", None)

    def _on_compaction_start(self, event: CompactionStart) -> None:
        text = f"Compacting the conversation ({event.reason}, {event.tokens_before:,} tokens)…"
        self.note("compaction", text, key="compaction")

    def _on_compaction_end(self, event: CompactionEnd) -> None:
        if event.message is not None:
            self._shown(event.message)
        if event.error:
            self.note("error", f"Compaction failed: {event.error}", key="compaction")
        elif event.message is None:
            text = "Nothing to compact: the whole conversation is recent enough to keep."
            self.note("info", text, key="compaction")
        else:
            text = f"Compacted: {event.tokens_before:,} → {event.tokens_after or 0:,} tokens."
            self.note("compaction", text, key="compaction")
        self._notes.pop("compaction", None)

    # -- selection ----------------------------------------------------------------------------

    @property
    def row_count(self) -> int:
        return len(self.history.items) + len(self.live)

    def select(self, index: int | None) -> None:
        if self.selected is not None and self.selected >= len(self.history.items):
            live = self.selected - len(self.history.items)
            if live < len(self.live):
                self.live[live].remove_class("-selected")
        self.selected = index
        in_history = index is not None and index < len(self.history.items)
        self.history.select(index if in_history else None)
        if index is None:
            return
        if in_history:
            top, height = self.history.span(index)
            y = self.history.virtual_region.y + top
            self.scroll_to_region(Region(0, y, 1, height), animate=False)
        else:
            row = self.live[index - len(self.history.items)]
            row.add_class("-selected")
            self.scroll_to_widget(row, animate=False)

    def action_move(self, step: int) -> None:
        if not self.row_count:
            return
        start = self.row_count if self.selected is None and step < 0 else (self.selected or 0)
        if self.selected is None and step > 0:
            start = -1
        self.select(min(max(start + step, 0), self.row_count - 1))

    def action_first(self) -> None:
        if self.row_count:
            self.select(0)

    def action_last(self) -> None:
        if self.row_count:
            self.select(self.row_count - 1)

    def action_expand(self) -> None:
        """Enter: expand the selected entry, or collapse it (not DOMNode's `toggle`)."""
        if self.selected is None:
            return
        if self.selected < len(self.history.items):
            self.history.toggle(self.selected)
        else:
            self.live[self.selected - len(self.history.items)].toggle()

    def on_history_clicked(self, message: History.Clicked) -> None:
        self.focus()
        self.select(message.index)
        self.history.toggle(message.index)
