"""One assistant reply as Markdown, streamed as it arrives.

Deltas only go into a buffer (cheap, called once per token). A timer appends the buffer to the
Markdown widget at most `FLUSHES_PER_SECOND` times a second, and the widget parses only from its
last block on. So a reply is never re-rendered whole per token. Drawing a long reply still costs
more as it grows (Textual lays out the screen and redraws the chat pane), so the gap after a
flush is also `DRAW_SHARE` times what the flush took until it was on screen (between 1/20 and
1/4 of a second): drawing takes at most about a quarter of the time, and keystrokes stay
responsive. The flush appends itself and awaits it (a `MarkdownStream`'s write returns before
its append, so the draw could not be timed).
"""

from __future__ import annotations

import asyncio
import re
import time

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from textual.await_complete import AwaitComplete
from textual.geometry import Size
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

from workbench.tui.items import ReplyItem
from workbench.tui.laid_out import laid_out, laid_out_size

SEAL_AT = 12
"""Top-level blocks a streamed reply holds before the settled ones are sealed into one part."""
KEEP_OPEN = 2
"""Blocks left open when sealing: the stream only ever rewrites the last one."""
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


class SealedPart(Markdown):
    """Settled blocks of a streamed reply, parsed again as one part of it."""

    DEFAULT_CSS = """
    SealedPart { margin: 0; padding: 0; background: transparent; }
    """
    virtual_size = laid_out_size()

    def __init__(self, markdown: str, top: int, bottom: int) -> None:
        super().__init__(markdown, parser_factory=reply_parser)
        self.styles.margin = (top, 0, bottom, 0)

    def update(self, markdown: str) -> AwaitComplete:
        writing = super().update(markdown)

        async def unmargined() -> None:
            """The first block's top margin and the last one's bottom margin are the part's
            own, so that they collapse with the blocks beside the part as they did before."""
            await writing
            if self.children:
                first, last = self.children[0].styles, self.children[-1].styles
                first.margin = (0, *first.margin[1:])
                last.margin = (*last.margin[:2], 0, last.margin[3])

        return AwaitComplete(unmargined())

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """Laid out as if in a container of no height: its blocks' heights do not depend on it
        (all `auto`), and Textual keys a layout by it, so the reply growing around the part
        would have it laid out afresh at every flush."""
        return super().get_content_height(Size(container.width, 0), viewport, width)

    def get_block_class(self, block_name: str) -> type[MarkdownBlock]:
        return laid_out(super().get_block_class(block_name))


class ReplyView(Markdown):
    """A reply's Markdown, fed through its one stream (see the module docstring)."""

    DEFAULT_CSS = """
    ReplyView { margin: 0; padding: 0 0 0 2; background: transparent; }
    ReplyView > MarkdownBlock.-reply-end { margin-bottom: 0; }
    ReplyView.-selected { background: $primary 30%; }
    """
    virtual_size = laid_out_size()

    def __init__(self, item: ReplyItem) -> None:
        super().__init__(with_status(item), parser_factory=reply_parser)
        self.item = item
        self._buffer: list[str] = []
        self._appending = asyncio.Lock()
        self._flush_timer: Timer | None = None
        self._gap = 1 / FLUSHES_PER_SECOND
        self._drawing = True
        """True until mounted, and while a flush is being drawn: no flush is scheduled then."""
        self.writes: list[float] = []
        """When the stream was written to (`time.monotonic()`); a test checks the rate."""
        self.finished = False
        self._end_block: Widget | None = None
        self._sealed_lines = 0
        """The source's lines held by sealed parts."""

    def get_block_class(self, block_name: str) -> type[MarkdownBlock]:
        return laid_out(super().get_block_class(block_name))

    def on_mount(self) -> None:
        self._drawing = False
        self._schedule()

    def update(self, markdown: str) -> AwaitComplete:
        parts = list(self.query_children(SealedPart))
        self._sealed_lines = 0
        writing = super().update(markdown)

        async def updated() -> None:
            await writing
            await self.remove_children(parts)
            self._mark_end()

        return AwaitComplete(updated())

    def append(self, markdown: str) -> AwaitComplete:
        """One flush of the stream, drawn once: what it mounts, restyles and seals is laid out
        in one go, not in a layout each (a layout of the screen is the costliest thing a flush
        does). Appends run one after another: `Markdown.append` reads where its last parse
        ended when it is called, so a second one begun before the first ended would parse
        the same lines again. Never called from this widget's own message queue (it waits on
        that queue): workers flush and finish."""

        async def appended() -> None:
            async with self._appending:
                with self.app.batch_update():
                    await Markdown.append(self, markdown)
                    self._mark_end()
                    await self._seal()
                    await self._mounts_ended()

        return AwaitComplete(appended())

    async def _mounts_ended(self) -> None:
        """Textual ends each mount a second time behind this widget's next message, with a
        layout of this widget: let that happen inside the batch, or it asks for a second
        layout of the screen just after the first."""
        ended = asyncio.Event()
        self.call_next(ended.set)
        await ended.wait()

    def _mark_end(self) -> None:
        """The last block has no bottom margin. A class set here and not `:last-child` in CSS:
        Textual restyles every child that has a `:last-child` rule (and all it holds) each time
        a child is mounted, which made every flush of a long reply restyle all of it."""
        last = self.children[-1] if self.children else None
        if last is not self._end_block:
            if self._end_block is not None:
                self._end_block.remove_class("-reply-end")
            if last is not None:
                last.add_class("-reply-end")
            self._end_block = last

    async def _seal(self) -> None:
        """Settled blocks into one part, so that a flush lays out a few blocks, not them all."""
        blocks = [child for child in self.children if isinstance(child, MarkdownBlock)]
        if len(blocks) < SEAL_AT:
            return
        settled, open_from = blocks[:-KEEP_OPEN], blocks[-KEEP_OPEN].source_range[0]
        lines = self.source.splitlines(keepends=True)
        text = "".join(lines[self._sealed_lines : open_from])
        self._sealed_lines = open_from
        part = SealedPart(text, settled[0].styles.margin.top, settled[-1].styles.margin.bottom)
        await self.mount(part, before=settled[0])
        await self.remove_children(settled)

    def append_text(self, text: str) -> None:
        """Take a streamed piece of the text (shown at the next flush)."""
        self.item.text += text
        self._buffer.append(text)
        self._schedule()

    def _schedule(self) -> None:
        if self._buffer and self._flush_timer is None and not self._drawing:
            self._flush_timer = self.set_timer(self._gap, self._start_flush)

    def _start_flush(self) -> None:
        """A flush runs as a worker, off this widget's message queue (see `append`)."""
        self.run_worker(self._flush(), group="flush")

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
        self.writes.append(time.monotonic())
        await self.append(text)

    def _drawn(self, started: float) -> None:
        cost = time.perf_counter() - started
        self._gap = min(max(1 / FLUSHES_PER_SECOND, DRAW_SHARE * cost), LONGEST_GAP_S)
        self._drawing = False
        self._schedule()

    def end(self, text: str, stop_reason: str | None, error: str | None) -> None:
        """The reply is recorded: finish it in a worker, off this widget's message queue (see
        `append`), which ends with the widget if the chat drops it meanwhile."""
        self.run_worker(self.finish(text, stop_reason, error), group="finish")

    async def finish(self, text: str, stop_reason: str | None, error: str | None) -> None:
        """Keep how the reply ended, write what is left, show the recorded text."""
        self.finished = True
        if self._flush_timer is not None:
            self._flush_timer.stop()
        changed = text != self.item.text
        self.item.text, self.item.stop_reason, self.item.error = text, stop_reason, error
        await self._write()
        if changed or self.item.status_words():
            await self.update(with_status(self.item))

    def toggle(self) -> None:
        """Nothing to expand: a live reply is shown whole."""
