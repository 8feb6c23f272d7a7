"""One assistant reply as Markdown, streamed as it arrives.

Deltas only go into a buffer (cheap, called once per token). A timer appends the buffer to the
Markdown widget at most `FLUSHES_PER_SECOND` times a second, and the widget parses only from its
last block on. Blocks the stream has moved past are drawn into a `FrozenPart` and dropped, so
the widgets a flush lays out stay a few however long the reply grows. Drawing a flush takes time
(Textual lays out the screen and redraws the chat pane), so the gap after a flush is also
`DRAW_SHARE` times what the flush took until it was on screen (between 1/20 and 1/4 of a
second), and keystrokes stay responsive. While the user types, or on a crowded machine
(`crowded`), a flush writes at most `BLOCKS_PER_FLUSH` blocks and the rest waits for the next,
which comes after half (not `DRAW_SHARE` times) the drawing: the reply catches up in short steps
that keys wait behind for little. While the user types on a crowded machine, where each step
takes twice as long or more, nothing is written: the reply waits for a pause in the typing (or
its end). The flush appends itself and awaits it (a `MarkdownStream`'s write returns before its
append, so the draw could not be timed).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Sequence
from itertools import groupby

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from rich.cells import cell_len
from rich.color import Color
from rich.segment import Segment
from rich.style import NULL_STYLE, Style
from textual.await_complete import AwaitComplete
from textual.geometry import Region, Size
from textual.message import Message
from textual.selection import Selection
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

from workbench.cpu_wait import WaitShare
from workbench.tui.components.editor import PromptEditor
from workbench.tui.components.history import styled_over
from workbench.tui.items import ReplyItem
from workbench.tui.laid_out import laid_out, laid_out_size

FREEZE_AT = 6
"""Top-level blocks a streamed reply holds before the settled ones are frozen."""
KEEP_OPEN = 2
"""Blocks left open when freezing: the stream only ever rewrites the last one."""
BLOCKS_PER_FLUSH = 3
"""Blank-line breaks (so about blocks) a flush writes at most while the user types or `crowded`:
the rest waits for the next one. Each new block is parsed, mounted, styled, laid out and drawn in
one step of the event loop, which keys wait behind; a fast stream brought ten blocks to a flush."""
TYPING_S = 1.0
"""The user types while their last key reached the editor this recently."""
CROWDED_SHARE = 0.25
"""The app's thread is crowded when it waited for a core this share of the time it wanted one
(two busy loops on two cores: a half; a quiet machine: a hundredth)."""
LOOP_WAIT = WaitShare()  # the event loop thread's, read as each flush begins
FLUSHES_PER_SECOND = 20
DRAW_SHARE = 3
LONGEST_GAP_S = 0.25
"""However slow drawing gets, the reply moves at least four times a second, unless it is held."""


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


class FrozenPart(Widget):
    """Settled blocks of a streaming reply, drawn from the lines they were drawn with.

    One widget for each run of blocks shown whole, however long the reply grows: Textual lays out
    and places every widget of the screen at each layout, so with the blocks kept, a flush late in
    a long reply cost more the longer the reply was. The lines hold no background of the reply's
    own: the reply's is put under them when drawn, so a selected reply still shows selected. Laid
    out at another width, or styled in another theme, it asks the reply to parse itself whole
    again (`Thaw`)."""

    DEFAULT_CSS = """
    FrozenPart { height: auto; background: transparent; }
    """
    virtual_size = laid_out_size()

    class Thaw(Message):
        """The lines no longer fit the reply: parse it whole again."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[Strip] = []
        self.drawn_in = (0, "")
        """The width and the theme the lines were drawn in."""
        self._thawing = False

    def extend(self, lines: list[Strip], width: int, bottom_margin: int) -> None:
        self.lines += lines
        self.drawn_in = (width, self.app.theme)
        self.styles.margin = (self.styles.margin.top, 0, bottom_margin, 0)
        self.refresh(layout=True)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if width != self.drawn_in[0]:
            self._thaw()
        return len(self.lines)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        if self.lines and self.app.theme != self.drawn_in[1]:
            self._thaw()

    def _thaw(self) -> None:
        if not self._thawing:
            self._thawing = True
            self.post_message(self.Thaw())

    def render_line(self, y: int) -> Strip:
        if y >= len(self.lines):
            return Strip.blank(self.size.width, self.rich_style)
        line = self.lines[y].apply_style(self.rich_style)
        span = self.text_selection.get_span(y) if self.text_selection else None
        if span is not None:
            line = _selected(line, span, self.screen.get_component_rich_style("screen--selection"))
        return _with_offsets(line, y)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        return selection.extract("\n".join(line.text.rstrip() for line in self.lines)), "\n"


def drawn_lines(
    blocks: Sequence[Widget], left: int, width: int, background: Color | None
) -> list[Strip]:
    """What `blocks`, laid out one under another and drawn, show from the top of the first to
    the bottom of the last, each block's widgets painted over their parents' (the gaps between
    blocks blank), `left` the column they start from; `background` left out."""
    top = blocks[0].region.y
    rows = [Strip.blank(width) for _ in range(blocks[-1].region.bottom - top)]
    for block in blocks:
        for widget in block.walk_children(Widget, with_self=True):
            region = widget.region
            if not region:  # not displayed
                continue
            x = region.x - left
            for y, line in enumerate(widget.render_lines(Region(0, 0, *region.size))):
                row = rows[region.y - top + y]
                line = line.crop(0, width - x)
                rows[region.y - top + y] = Strip.join(
                    [row.crop(0, x), line, row.crop(x + line.cell_length, width)]
                )
    return [_without_background(row, background) for row in rows]


def _without_background(line: Strip, background: Color | None) -> Strip:
    return Strip(
        [
            Segment(text, style.without_color + Style(color=style.color), control)
            if style is not None and style.bgcolor == background
            else Segment(text, style, control)
            for text, style, control in line
        ],
        line.cell_length,
    )


def _selected(line: Strip, span: tuple[int, int], style: Style) -> Strip:
    """`line` with the characters of `span` (the end -1: to the end) in `style`."""
    text = line.text
    start, end = span
    start = cell_len(text[:start])
    end = line.cell_length if end == -1 else cell_len(text[:end])
    before, chosen, after = line.divide([start, end, line.cell_length])
    return Strip.join([before, styled_over(chosen, style), after])


def _with_offsets(line: Strip, y: int) -> Strip:
    """Each piece of `line` tagged with where it starts (the text selection reads it)."""
    pieces, x = [], 0
    for text, style, control in line:
        pieces.append(
            Segment(text, (style or NULL_STYLE) + Style.from_meta({"offset": (x, y)}), control)
        )
        x += len(text)
    return Strip(pieces, line.cell_length)


def crowded() -> bool:
    """Whether the app's thread was crowded up to the last flush (or held one)."""
    return LOOP_WAIT.share > CROWDED_SHARE


def _first_blocks(text: str, breaks: int) -> tuple[str, str]:
    """`text` cut after its `breaks`-th blank line (any cut is one a stream could make)."""
    end = 0
    for _ in range(breaks):
        end = text.find("\n\n", end) + 2
        if end == 1:
            return text, ""
    return text[:end], text[end:]


def _laid_out(block: Widget) -> bool:
    """Laid out as it now is (the screen's map has it at the size it was last given)."""
    region = block.region
    return bool(region) and region.size == block.outer_size


def _shown_whole(block: Widget) -> bool:
    """Nothing in `block` scrolls (a code line wider than the chat, say): lines drawn once would
    show neither the rest of it nor a way to it."""
    return not any(map(_scrolls, block.walk_children(Widget, with_self=True)))


def _scrolls(widget: Widget) -> bool:
    styles = widget.styles
    return bool(
        (styles.overflow_x != "hidden" and widget.max_scroll_x)
        or (styles.overflow_y != "hidden" and widget.max_scroll_y)
    )


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
        self._behind = False
        """The last flush left text for the next (`BLOCKS_PER_FLUSH`)."""
        self.writes: list[float] = []
        """When the stream was written to (`time.monotonic()`); a test checks the rate."""
        self.finished = False
        self._end_block: Widget | None = None

    def get_block_class(self, block_name: str) -> type[MarkdownBlock]:
        return laid_out(super().get_block_class(block_name))

    def render_lines(self, crop: Region) -> list[Strip]:
        """The frame under the blocks is blank, one line for all its rows: Textual drew every row
        again each time the reply grew, for each flush of a stream."""
        _, background = self.background_colors
        line = Strip.blank(crop.width, Style(bgcolor=self.rich_style.bgcolor))
        for line_filter in self.get_line_filters():
            line = line.apply_filter(line_filter, background)
        return [line] * crop.height

    def on_mount(self) -> None:
        self._drawing = False
        self._schedule()

    def update(self, markdown: str) -> AwaitComplete:
        frozen = list(self.query_children(FrozenPart))
        writing = super().update(markdown)

        async def updated() -> None:
            with self.app.batch_update():
                await writing
                await self.remove_children(frozen)
                self._mark_end()

        return AwaitComplete(updated())

    def append(self, markdown: str) -> AwaitComplete:
        """One flush of the stream, drawn once: what it mounts, restyles and freezes is laid out
        in one go, not in a layout each (a layout of the screen is the costliest thing a flush
        does). Appends run one after another: `Markdown.append` reads where its last parse
        ended when it is called, so a second one begun before the first ended would parse
        the same lines again. Never called from this widget's own message queue (it waits on
        that queue): workers flush and finish."""

        async def appended() -> None:
            async with self._appending:
                with self.app.batch_update():
                    await self._freeze()
                    await Markdown.append(self, markdown)
                    self._mark_end()
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

    async def _freeze(self) -> None:
        """Settled blocks drawn into frozen parts, so that a flush lays out a few widgets: each
        run of them that is shown whole into the part before it, or a new one."""
        blocks = [child for child in self.children if isinstance(child, MarkdownBlock)]
        if len(blocks) < FREEZE_AT:
            return
        settled, parts = blocks[:-KEEP_OPEN], list(self.query_children(FrozenPart))
        if not all(map(_laid_out, settled)) or any(
            part.region.height != len(part.lines) for part in parts
        ):
            return
        left, width = self.content_region.x, self.content_region.width
        frozen: list[Widget] = []
        for whole, grouped in groupby(settled, _shown_whole):
            if not whole:
                continue
            run = list(grouped)
            lines = drawn_lines(run, left, width, self.rich_style.bgcolor)
            index = self.children.index(run[0])
            part = self.children[index - 1] if index else None
            if isinstance(part, FrozenPart):
                lines = [Strip.blank(width)] * (run[0].region.y - part.region.bottom) + lines
            else:
                part = FrozenPart()
                part.styles.margin = (run[0].styles.margin.top, 0, 0, 0)
                await self.mount(part, before=run[0])
            part.extend(lines, width, run[-1].styles.margin.bottom)
            frozen += run
        await self.remove_children(frozen)

    def on_frozen_part_thaw(self, message: FrozenPart.Thaw) -> None:
        message.stop()
        self.run_worker(self._thaw(), group="thaw", exclusive=True)

    async def _thaw(self) -> None:
        """The reply parsed whole again: its frozen lines no longer fit. The stream goes on
        from the last block, as after an append (`update` would have it go on after it)."""
        async with self._appending:
            if self.query_children(FrozenPart):
                await self.update(self.source)
                blocks = [child for child in self.children if isinstance(child, MarkdownBlock)]
                if blocks:
                    self._last_parsed_line = blocks[-1].source_range[0]

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
        LOOP_WAIT.read()
        if self._typing() and crowded():  # keys first: the text waits for a pause
            self._flush_timer = self.set_timer(LONGEST_GAP_S, self._start_flush)
            return
        self._drawing = True
        started = time.perf_counter()
        await self._write()
        self.call_after_refresh(self._drawn, started)

    async def _write(self) -> None:
        if not self._buffer:
            return
        text, rest = "".join(self._buffer), ""
        if self._typing() or crowded():
            text, rest = _first_blocks(text, BLOCKS_PER_FLUSH)
        self._buffer, self._behind = ([rest], True) if rest else ([], False)
        self.writes.append(time.monotonic())
        await self.append(text)

    def _typing(self) -> bool:
        editor = self.screen.focused
        return isinstance(editor, PromptEditor) and time.monotonic() - editor.typed_at < TYPING_S

    def _drawn(self, started: float) -> None:
        cost = time.perf_counter() - started
        share = 1 / 2 if self._behind else DRAW_SHARE  # text left for the next flush: catch up
        self._gap = min(max(1 / FLUSHES_PER_SECOND, share * cost), LONGEST_GAP_S)
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
        if changed or self.item.status_words():
            self._buffer = []
            async with self._appending:  # after a flush under way
                await self.update(with_status(self.item))
        while self._buffer:  # the rest a flush at a time, each drawn before the next
            await self._write()
            drawn = asyncio.Event()
            self.call_after_refresh(drawn.set)
            await drawn.wait()

    def toggle(self) -> None:
        """Nothing to expand: a live reply is shown whole."""
