"""One assistant reply as Markdown, streamed as it arrives.

Deltas only go into a buffer (cheap, called once per token). A timer hands the buffer to the
reply's one `MarkdownStream` at most `FLUSHES_PER_SECOND` times a second; the stream appends to
the Markdown widget, which parses only from its last block on. So a reply is never re-rendered
whole per token. Drawing a long reply still costs more as it grows (Textual lays out every block
again), so the gap between flushes is also kept at `DRAW_SHARE` times what the last flush took to
draw: the reply never takes more than a third of the time, and keystrokes stay responsive.
"""

from __future__ import annotations

import time

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Markdown, Static
from textual.widgets.markdown import MarkdownStream

from workbench.tui.items import ReplyItem

FLUSHES_PER_SECOND = 20
DRAW_SHARE = 3


def _hard_breaks(state: StateCore) -> None:
    """Keep the reply's line breaks: models write options and steps one per line."""
    for token in state.tokens:
        for child in token.children or ():
            if child.type == "softbreak":
                child.type = "hardbreak"


def reply_parser() -> MarkdownIt:
    """GitHub-flavoured Markdown where a line break in the text is a line break on screen."""
    parser = MarkdownIt("gfm-like")
    parser.core.ruler.push("hard_breaks", _hard_breaks)
    return parser


class ReplyView(Vertical):
    """A reply: its thinking (one dim line while it streams), its Markdown text, its status."""

    DEFAULT_CSS = """
    ReplyView { height: auto; }
    ReplyView > Markdown { margin: 0; padding: 0 0 0 2; background: transparent; }
    ReplyView > Markdown > MarkdownBlock:last-child { margin-bottom: 0; }
    ReplyView > .thinking { color: $text-muted; text-style: italic; padding-left: 2; }
    ReplyView.-selected { background: $primary 30%; }
    """

    expanded: reactive[bool] = reactive(True)
    """Replies are always shown whole while live; the flag keeps the row interface uniform."""

    def __init__(self, item: ReplyItem) -> None:
        super().__init__()
        self.item = item
        self._shown = item.text
        """The text the Markdown starts with; later text arrives through the stream."""
        self._buffer: list[str] = []
        self._stream: MarkdownStream | None = None
        self._flush_timer: Timer | None = None
        self._gap = 1 / FLUSHES_PER_SECOND
        self._drawing = True
        """True until mounted, and while a flush is being drawn: no flush is scheduled then."""
        self.writes: list[float] = []
        """When the stream was written to (`time.monotonic()`); a test checks the rate."""
        self.finished = False

    def compose(self) -> ComposeResult:
        yield Static(classes="thinking")
        yield Markdown(self._shown, parser_factory=reply_parser)

    def on_mount(self) -> None:
        self.query_one(".thinking").display = False
        self._drawing = False
        self._schedule()

    def append(self, text: str) -> None:
        """Take a streamed piece of the text (shown at the next flush)."""
        self.item.text += text
        self._buffer.append(text)
        self._schedule()

    def _schedule(self) -> None:
        if self._buffer and self._flush_timer is None and not self._drawing:
            self._flush_timer = self.set_timer(self._gap, self._flush)

    def think(self, text: str) -> None:
        """Take a streamed piece of the thinking: its latest line shows, dimmed."""
        self.item.thinking += text
        if not self.is_mounted:
            return
        thinking = self.query_one(".thinking", Static)
        lines = self.item.thinking.strip().splitlines()
        thinking.update(f"thinking: {lines[-1] if lines else ''}")
        thinking.display = True

    async def _flush(self) -> None:
        self._flush_timer = None
        if self.finished:
            return
        self._drawing = True
        started = time.perf_counter()
        await self._write()
        self.call_after_refresh(self._drawn, started)

    async def _write(self) -> None:
        if not self._buffer:
            return
        text, self._buffer = "".join(self._buffer), []
        if self._stream is None:
            self._stream = Markdown.get_stream(self.query_one(Markdown))
        self.writes.append(time.monotonic())
        await self._stream.write(text)

    def _drawn(self, started: float) -> None:
        self._gap = max(1 / FLUSHES_PER_SECOND, DRAW_SHARE * (time.perf_counter() - started))
        self._drawing = False
        self._schedule()

    async def finish(self, text: str, stop_reason: str | None, error: str | None) -> None:
        """The reply is recorded: write what is left, end the stream, show how it ended."""
        self.finished = True
        if self._flush_timer is not None:
            self._flush_timer.stop()
        await self._write()
        if self._stream is not None:
            await self._stream.stop()
        markdown = self.query_one(Markdown)
        if text != self.item.text or (self._stream is None and text):
            await markdown.update(text)
        self.item.text, self.item.stop_reason, self.item.error = text, stop_reason, error
        self.query_one(".thinking").display = False
        status = self.item.status_text()
        if status:
            await self.mount(Static(status, classes="status"))

    def toggle(self) -> None:
        """Nothing to expand: a live reply is shown whole."""
