"""One assistant reply as Markdown, streamed as it arrives.

Deltas only go into a buffer (cheap, called once per token). A timer hands the buffer to the
reply's one `MarkdownStream` at most `FLUSHES_PER_SECOND` times a second; the stream appends to
the Markdown widget, which parses only from its last block on. So a reply is never re-rendered
whole per token. Drawing a long reply still costs more as it grows (Textual lays out every block
again), so the gap between flushes is also kept at `DRAW_SHARE` times what the last flush took to
draw (between 1/20 and 1/4 of a second): drawing takes at most about a third of the time, and
keystrokes stay responsive.
"""

from __future__ import annotations

import re
import time

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from textual.await_complete import AwaitComplete
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownStream

from workbench.tui.items import ReplyItem

FLUSHES_PER_SECOND = 20
DRAW_SHARE = 3
LONGEST_GAP_S = 0.25
"""However slow drawing gets, the reply moves at least four times a second."""


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


MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_\[\]<>#|~])")


def with_status(item: ReplyItem) -> str:
    """The reply's Markdown with how it ended under it (`(aborted)`, `(failed: why)`), as
    the folded history shows it: live and reopened, a cut-off reply says so."""
    words = MARKDOWN_PUNCTUATION.sub(r"\\\1", item.status_words())
    return f"{item.text}\n\n*{words}*" if words else item.text


class ReplyView(Markdown):
    """A reply's Markdown, fed through its one stream (see the module docstring)."""

    DEFAULT_CSS = """
    ReplyView { margin: 0; padding: 0 0 0 2; background: transparent; }
    ReplyView > MarkdownBlock.-reply-end { margin-bottom: 0; }
    ReplyView.-selected { background: $primary 30%; }
    """

    def __init__(self, item: ReplyItem) -> None:
        super().__init__(with_status(item), parser_factory=reply_parser)
        self.item = item
        self._buffer: list[str] = []
        self._stream: MarkdownStream | None = None
        self._flush_timer: Timer | None = None
        self._gap = 1 / FLUSHES_PER_SECOND
        self._drawing = True
        """True until mounted, and while a flush is being drawn: no flush is scheduled then."""
        self.writes: list[float] = []
        """When the stream was written to (`time.monotonic()`); a test checks the rate."""
        self.finished = False
        self._end_block: Widget | None = None

    def on_mount(self) -> None:
        self._drawing = False
        self._schedule()

    def update(self, markdown: str) -> AwaitComplete:
        return self._then_mark_end(super().update(markdown))

    def append(self, markdown: str) -> AwaitComplete:
        return self._then_mark_end(super().append(markdown))

    def _then_mark_end(self, writing: AwaitComplete) -> AwaitComplete:
        """The last block has no bottom margin. A class set here and not `:last-child` in CSS:
        Textual restyles every child that has a `:last-child` rule (and all it holds) each time
        a child is mounted, which made every flush of a long reply restyle all of it."""

        async def written() -> None:
            await writing
            last = self.children[-1] if self.children else None
            if last is not self._end_block:
                if self._end_block is not None:
                    self._end_block.remove_class("-reply-end")
                if last is not None:
                    last.add_class("-reply-end")
                self._end_block = last

        return AwaitComplete(written())

    def append_text(self, text: str) -> None:
        """Take a streamed piece of the text (shown at the next flush)."""
        self.item.text += text
        self._buffer.append(text)
        self._schedule()

    def _schedule(self) -> None:
        if self._buffer and self._flush_timer is None and not self._drawing:
            self._flush_timer = self.set_timer(self._gap, self._flush)

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
            self._stream = Markdown.get_stream(self)
        self.writes.append(time.monotonic())
        await self._stream.write(text)

    def _drawn(self, started: float) -> None:
        cost = time.perf_counter() - started
        self._gap = min(max(1 / FLUSHES_PER_SECOND, DRAW_SHARE * cost), LONGEST_GAP_S)
        self._drawing = False
        self._schedule()

    async def finish(self, text: str, stop_reason: str | None, error: str | None) -> None:
        """The reply is recorded: write what is left, end the stream, keep how it ended."""
        self.finished = True
        if self._flush_timer is not None:
            self._flush_timer.stop()
        await self._write()
        if self._stream is not None:
            await self._stream.stop()
        changed = text != self.item.text
        self.item.text, self.item.stop_reason, self.item.error = text, stop_reason, error
        if changed or self.item.status_words():
            await self.update(with_status(self.item))

    def toggle(self) -> None:
        """Nothing to expand: a live reply is shown whole."""
