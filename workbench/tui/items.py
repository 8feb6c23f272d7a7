"""What the transcript shows, as plain records: a user message, a reply, a tool call, a note.

The same record is drawn two ways: `summary()` (a few one-line Texts: the cheap, collapsed form
the history uses for finished turns) and `full()` (everything: the live form, and the history's
expanded form). Records are built from the branch's messages when a session opens and from the
agent's events while it runs, so both paths show the same thing.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from workbench.agent.compaction_plan import file_lists_as_text
from workbench.messages import TYPED, ending_words
from workbench.skipped import was_skipped, why_skipped
from workbench.text import count_of
from workbench.tui import palette

if TYPE_CHECKING:
    from workbench.messages import Message

PREVIEW_LINES = 2
DETAIL_LINES = 40
LIVE_OUTPUT_LINES = 4
"""A running tool shows this many last lines of its output under its header without being
expanded; a running `subagent` shows its summary line and one line per child."""
KEY_ARGUMENTS = {"read": "path", "edit": "path", "write": "path", "bash": "command"}
ToolStatus = Literal["running", "ok", "error", "skipped", "not run"]
NoteKind = Literal["info", "warning", "error", "skill", "compaction", "summary"]
MARKUP = re.compile(r"\*\*|__|`")


def _first_lines(text: str, count: int) -> tuple[list[str], bool]:
    """Up to `count` non-blank lines (heading marks, emphasis and code ticks dropped) and
    whether more follow."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    shown = [MARKUP.sub("", line.lstrip("#").strip()) for line in lines[:count]]
    return shown, len(lines) > count


def _preview(mark: Text, text: str, style: str = "", status: Text | None = None) -> list[Text]:
    """The collapsed form of a message: its first line after `mark`, then up to
    `PREVIEW_LINES` more, dimmed, the last ending in `…` when there is more."""
    lines, more = _first_lines(text, PREVIEW_LINES + 1)
    head = Text.assemble(mark, (lines[0] if lines else "", style), status or Text())
    rest = [Text("  " + line, palette.DIM) for line in lines[1:]]
    if more:
        rest[-1].append(" …")
    return [head, *rest]


def _clip(text: str, lines: int) -> str:
    """At most `lines` lines of `text`, saying how many were left out."""
    rows = text.splitlines()
    if len(rows) <= lines:
        return text
    return "\n".join([*rows[:lines], f"… {len(rows) - lines} more lines"])


@dataclass
class Item:
    """A transcript entry. `expandable`: `full()` shows more than `summary()`."""

    @property
    def expandable(self) -> bool:
        return True

    @property
    def live_full(self) -> bool:
        """Whether a live row shows `full()` before the user expands it."""
        return True

    def summary(self) -> list[Text]:
        raise NotImplementedError

    def fitted(self, width: int) -> list[Text]:
        """`summary()` for lines `width` cells wide (0: any width), where a line cut for the
        width keeps what matters most in view (a tool call's outcome)."""
        return self.summary()

    def live_summary(self, width: int = 0) -> RenderableType:
        """`summary()` as a live row `width` cells wide draws it (its lines may wrap)."""
        return Group(*self.fitted(width))

    def full(self) -> RenderableType:
        raise NotImplementedError


@dataclass
class UserItem(Item):
    text: str
    typed: str = ""
    """What the user typed when an extension rewrote it (`/skill:NAME request`): the one line
    shown; the text the model got (the skill's) is folded under it."""

    @property
    def live_full(self) -> bool:
        return not self.typed

    def summary(self) -> list[Text]:
        if self.typed:
            return [Text.assemble(*self._typed_line(), ("  (skill text folded)", palette.DIM))]
        return _preview(Text("❯ ", palette.USER_MARK), self.text, "bold")

    def _typed_line(self) -> tuple[tuple[str, str], ...]:
        return ("❯ ", palette.USER_MARK), (self.typed, "bold")

    def full(self) -> RenderableType:
        if self.typed:
            sent = Text(_clip(self.text, DETAIL_LINES), palette.DIM)
            return Group(Text.assemble(*self._typed_line()), Padding(sent, (0, 0, 0, 2)))
        return hanging(Text("❯ ", palette.USER_MARK), Text(self.text, "bold"))


@dataclass
class ReplyItem(Item):
    text: str = ""
    thinking: str = ""
    stop_reason: str | None = None
    error: str | None = None

    def status_words(self) -> str:
        """`(aborted)`, `(failed: why)`, or "" for a reply that ended as it should."""
        return ending_words(self.stop_reason, self.error)

    def status_text(self) -> Text:
        words = self.status_words()
        style = palette.WARNING if self.stop_reason == "aborted" else palette.ERROR
        return Text(f"  {words}", style) if words else Text()

    def summary(self) -> list[Text]:
        mark = Text("● ", palette.REPLY_MARK)
        return _preview(mark, self.text or self.thinking, status=self.status_text())

    def full(self) -> RenderableType:
        from rich.markdown import Markdown

        parts: list[RenderableType] = []
        if self.thinking:
            parts.append(Text(_clip(self.thinking, DETAIL_LINES), palette.THINKING))
        parts.append(Markdown(self.text))
        status = self.status_text()
        if status:
            parts.append(status)
        return Group(*parts)


@dataclass
class ThinkingItem(Item):
    """A reply's thinking while it streams: its latest line, the whole of it when expanded."""

    text: str = ""

    @property
    def live_full(self) -> bool:
        return False

    def summary(self) -> list[Text]:
        lines = self.text.strip().splitlines()
        return [Text(f"  thinking: {lines[-1] if lines else ''}", palette.THINKING)]

    def full(self) -> RenderableType:
        return Text(_clip(self.text.strip(), DETAIL_LINES), palette.THINKING)


@dataclass
class ToolItem(Item):
    call_id: str
    name: str
    args: dict[str, Any]
    status: ToolStatus = "running"
    result: str = ""
    duration_ms: float | None = None
    output: str = ""
    """The latest partial output of a running tool."""
    skill: dict[str, Any] | None = None
    """The enforcer's load record when this call loaded a skill."""
    show_duration: bool = True
    started: float = field(default_factory=time.monotonic)
    waiting: bool = False
    """The call waits for the user's answer in the permission prompt, not running yet."""

    @property
    def live_full(self) -> bool:
        return False

    def key_argument(self) -> str:
        value = self.args.get(KEY_ARGUMENTS.get(self.name, ""))
        if value is None:
            value = next((v for v in self.args.values() if isinstance(v, str)), "")
        return " ".join(str(value).split())

    def _suffix(self) -> Text:
        suffix = Text()
        if self.skill is not None:
            ok = self.skill.get("verdict") == "ok"
            style = palette.SUCCESS if ok else palette.ERROR
            verdict = "" if ok else f" {self.skill.get('verdict')}"
            part = " (partly)" if self.skill.get("partial") else ""
            suffix.append(f"  skill {self.skill.get('skill')}{part}{verdict}", style)
        if self.status == "skipped":
            suffix.append(f"  skipped: {why_skipped(self.result)}", palette.SKIPPED)
        elif self.status in ("error", "not run"):
            first = self.result.splitlines()[0] if self.result else "never ran"
            suffix.append(f"  {first}", palette.ERROR)
        elif self.status == "running" and self.waiting:
            suffix.append("  waiting for your answer", palette.WARNING)
        elif self.status == "running":
            ran = int(time.monotonic() - self.started)
            shown = f" {ran} s" if self.show_duration and ran >= 1 else ""
            suffix.append(f"  running…{shown}", palette.DIM)
        if self.show_duration and self.duration_ms is not None and self.status != "skipped":
            seconds = self.duration_ms / 1000
            suffix.append(f"  {seconds:.1f} s" if seconds >= 0.1 else "  <0.1 s", palette.DIM)
        return suffix

    def header(self, width: int = 0) -> Text:
        """One line. Given the width it has, a header too wide for it cuts the call's argument
        with an ellipsis so that the outcome (verdict, duration) stays whole on the line."""
        icon, style = palette.TOOL_ICONS[self.status]
        argument, outcome = self.key_argument(), self._suffix()
        room = width - len(icon) - 1 - len(self.name) - 2 - outcome.cell_len
        if width and room < len(argument):
            argument = argument[: max(room - 1, 0)] + "…"
        return Text.assemble(
            (f"{icon} ", style), (self.name, "bold"), "  ", (argument, palette.DIM), outcome
        )

    def summary(self) -> list[Text]:
        return self.fitted(0)

    def fitted(self, width: int) -> list[Text]:
        return [self.header(width), *self._output_tail()]

    def _output_tail(self) -> list[Text]:
        """A running tool's last lines of output (a sub-agent's: a line per child)."""
        if self.status != "running" or not self.output.strip():
            return []
        output = self.output.rstrip().splitlines()
        if self.name == "subagent":  # a line per child; their own last lines are indented
            tail = [line for line in output if not line.startswith("    ")]
        else:
            tail = output[-LIVE_OUTPUT_LINES:]
        return [Text("  " + line, palette.DIM, no_wrap=True, overflow="ellipsis") for line in tail]

    def full(self) -> RenderableType:
        lines: list[RenderableType] = []
        for key, value in self.args.items():
            shown = value if isinstance(value, str) else json.dumps(value)
            lines.append(Text(f"{key}: ", palette.DIM) + Text(_clip(shown, DETAIL_LINES)))
        body = self.result if self.status != "running" else self.output
        if body:
            lines.append(
                Text("─ result ─" if self.status != "running" else "─ output ─", palette.DIM)
            )
            lines.append(Text(_clip(body, DETAIL_LINES), palette.ERROR if self.is_error else ""))
        return Group(self.header(), Padding(Group(*lines), (0, 0, 0, 2)))

    @property
    def is_error(self) -> bool:
        return self.status in ("error", "not run")


def on_screen(text: str) -> str:
    """A note as read on screen: the code ticks written for the model are dropped."""
    return text.replace("`", "")


def hanging(marker: Text, body: RenderableType) -> Table:
    """`marker` then `body`, whose wrapped lines start under its first character."""
    grid = Table.grid()
    grid.add_column(no_wrap=True)
    grid.add_column()
    grid.add_row(marker, body)
    return grid


@dataclass
class NoteItem(Item):
    kind: NoteKind
    text: str
    hint: str | None = None

    @property
    def expandable(self) -> bool:
        return "\n" in self.text

    @property
    def live_full(self) -> bool:
        """Summaries are long: they show their first line until expanded."""
        return self.kind not in ("summary", "compaction")

    def summary(self) -> list[Text]:
        icon, style = palette.NOTE_ICONS[self.kind]
        lines = on_screen(self.text).splitlines() or [""]
        head = Text.assemble((f"{icon} ", style), (lines[0], style))
        if len(lines) > 1:
            head.append(f"  (+{count_of(len(lines) - 1, 'line')})", palette.DIM)
        hint = [Text(f"  → {on_screen(self.hint)}", palette.DIM)] if self.hint else []
        return [head, *hint]

    def full(self) -> RenderableType:
        """The note and its hint, each wrapped under its own first word, not under the icon."""
        icon, style = palette.NOTE_ICONS[self.kind]
        first, _, rest = on_screen(self.text).partition("\n")
        body = Text(first, style)
        if rest:
            body.append("\n" + rest, "")
        note = hanging(Text(f"{icon} ", style), body)
        if self.hint:
            hint = Text(on_screen(self.hint), palette.DIM)
            note.add_row("", hanging(Text("→ ", palette.DIM), hint))
        return note


@dataclass
class ItemBuilder:
    """Items built from messages, with tool calls matched to their results by id."""

    items: list[Item] = field(default_factory=list)
    open_calls: dict[str, ToolItem] = field(default_factory=dict)
    show_duration: bool = True

    def add_message(self, message: Message) -> None:
        if message.role == "user":
            self.items.append(UserItem(message.text, str(message.details.get(TYPED) or "")))
        elif message.role == "assistant":
            if message.text or message.thinking or message.stop_reason in ("aborted", "error"):
                error = message.details.get("error")
                self.items.append(
                    ReplyItem(message.text, message.thinking, message.stop_reason, error)
                )
            for call in message.tool_calls:
                tool = ToolItem(call.id, call.name, call.arguments, "not run")
                tool.show_duration = self.show_duration
                self.open_calls[call.id] = tool
                self.items.append(tool)
        elif message.role == "tool_result":
            opened = self.open_calls.pop(message.tool_call_id or "", None)
            if opened is None:
                opened = ToolItem(message.tool_call_id or "", message.tool_name or "tool", {})
                self.items.append(opened)
            finish_tool(opened, message.text, message.is_error, message.details, skipped=None)
            duration = message.details.get("duration_ms")
            if isinstance(duration, (int, float)) and opened.status != "skipped":
                opened.duration_ms = duration
        elif message.role == "notice":
            kind: NoteKind = "skill" if "skill_notice" in message.details else "info"
            self.items.append(NoteItem("warning" if message.is_error else kind, message.text))
        elif message.role == "compaction":
            self.items.append(
                NoteItem(
                    "compaction",
                    "Earlier history was summarised:\n" + file_lists_as_text(message.text),
                )
            )
        elif message.role == "branch_summary":
            merged = message.details.get("entry_type") == "merge"  # its text says so itself
            text = file_lists_as_text(message.text)
            text = text if merged else "Summary of the path left behind:\n" + text
            self.items.append(NoteItem("summary", text))


def finish_tool(
    tool: ToolItem, text: str, is_error: bool, details: dict[str, Any], skipped: bool | None
) -> None:
    """Record a tool's outcome; `skipped` None means: tell from the recorded result."""
    if skipped is None:
        skipped = was_skipped(details, text, is_error)
    tool.result = text
    tool.output = ""
    tool.status = "skipped" if skipped else ("error" if is_error else "ok")
    record = details.get("skill_load")
    tool.skill = record if isinstance(record, dict) else None
