"""A long reply while it streams: its settled blocks are frozen into lines, so each flush lays
out a few widgets rather than the whole reply (keystrokes typed meanwhile wait for every layout),
each flush lays the screen out once and redraws nothing it did not change, and the reply reads
exactly as it does when shown whole."""

from __future__ import annotations

from collections import Counter
from typing import Any

from support.app_pilot import SIZE, opened, until
from textual.pilot import Pilot
from textual.selection import Selection
from textual.widgets.markdown import MarkdownBlock, MarkdownFence

from workbench.agent.events import MessageUpdate
from workbench.messages import Message
from workbench.tui.app import WorkbenchApp
from workbench.tui.components import reply as reply_module
from workbench.tui.components.reply import (
    BLOCKS_PER_FLUSH,
    FREEZE_AT,
    LONGEST_GAP_S,
    FrozenPart,
    ReplyView,
)
from workbench.tui.components.skill_panel import SkillPanel
from workbench.tui.components.tree_panel import TreePanel


def long_reply(parts: int) -> str:
    """A reply shaped like a model's: headings, paragraphs, a list, code, many blocks."""
    sections = []
    for n in range(parts):
        words = " ".join(f"word{n}-{i}" for i in range(8))
        sections.append(
            f"## Part {n}\n\n{words}\n\nNext, {words}\n\n- point one {n}\n- point two {n}\n\n"
            f"```python\ndef check(value):\n    return value > {n}\n```\n\nThen {words}."
        )
    return "\n\n".join(sections)


def screen_lines(app: WorkbenchApp) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


async def pages(pilot: Pilot[Any], app: WorkbenchApp) -> list[list[str]]:
    """The chat as a user scrolling it from top to bottom sees it."""
    transcript = app.transcript
    seen = []
    for y in range(0, transcript.max_scroll_y + 1, 7):
        transcript.scroll_to(y=y, animate=False, immediate=True)
        await pilot.pause()
        seen.append(screen_lines(app))
    return seen


async def test_a_long_reply_streams_into_frozen_lines_and_reads_as_it_does_whole(
    make_app,
) -> None:
    text = long_reply(5)  # 30 blocks
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await stream(pilot, app, text)
        reply = app.transcript._current_reply()
        assert reply.source == text
        open_blocks = [c for c in reply.children if isinstance(c, MarkdownBlock)]
        assert len(open_blocks) < FREEZE_AT, "the settled blocks are frozen as the reply streams"
        assert len(reply.query_children(FrozenPart)) == 1
        streamed = await pages(pilot, app)
        await reply.update(text)  # the same reply parsed whole, as a reopened session shows it
        assert not reply.query_children(FrozenPart)
        assert await pages(pilot, app) == streamed


async def stream(pilot: Pilot[Any], app: WorkbenchApp, text: str) -> None:
    """Stream `text` into the chat's reply a flush at a time."""
    for start in range(0, len(text), 150):
        await flush(pilot, app, text[start : start + 150])


def write_widths(reply: ReplyView) -> list[int]:
    """The blank-line breaks each Markdown write of `reply` holds, from now on."""
    widths: list[int] = []
    append = reply.append
    reply.append = lambda markdown: widths.append(markdown.count("\n\n")) or append(markdown)
    return widths


async def burst_writes(pilot: Pilot[Any], app: WorkbenchApp, text: str) -> list[int]:
    """Stream `text` in one piece: the blank-line breaks each Markdown write of it held."""
    reply = app.transcript._current_reply()
    widths = write_widths(reply)
    await flush(pilot, app, text)
    assert reply.source == text
    return widths


async def test_a_burst_of_many_blocks_while_the_user_types_is_shown_a_few_at_a_time(
    make_app, monkeypatch
) -> None:
    """A fast model (or a stream read after a pause) brings many blocks at once: each is parsed,
    mounted, styled, laid out and drawn in one step that keystrokes wait behind, so while the
    user types a flush writes at most a few of them and the next follows soon after."""
    monkeypatch.setattr(reply_module, "TYPING_S", 600.0)  # however slowly this machine draws
    text = long_reply(3)  # 18 blocks, in one piece
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("h", "i")
        widths = await burst_writes(pilot, app, text)
        assert len(widths) >= 5 and max(widths) <= BLOCKS_PER_FLUSH
        assert app.editor.text == "hi"
        streamed = await pages(pilot, app)
        await app.transcript._current_reply().update(text)
        assert await pages(pilot, app) == streamed


async def test_a_burst_while_nobody_types_is_shown_at_once(make_app) -> None:
    text = long_reply(3)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        assert await burst_writes(pilot, app, text) == [text.count("\n\n")]


async def test_on_a_crowded_machine_the_reply_waits_while_the_user_types(
    make_app, monkeypatch
) -> None:
    """Where other work takes the cores, each step of the app takes twice as long or more, and
    keys wait behind every one: while the user types, the reply holds what arrives; once they
    pause it is written, a few blocks a step, and reads as the same reply parsed whole."""
    monkeypatch.setattr(reply_module, "crowded", lambda: True)
    monkeypatch.setattr(reply_module, "TYPING_S", 600.0)
    text = long_reply(3)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("h", "i")
        reply = app.transcript._current_reply()
        widths = write_widths(reply)
        message = Message("assistant", "")
        app.transcript.on_workbench_event(MessageUpdate(message=message, delta=text))
        await pilot.pause(4 * LONGEST_GAP_S)
        assert widths == [] and reply._buffer == [text]
        assert not any("Part 0" in line for line in screen_lines(app))
        await pilot.press("!")
        assert app.editor.text == "hi!"
        monkeypatch.setattr(reply_module, "TYPING_S", 0.0)  # the user pauses
        await until(pilot, lambda: not reply._buffer and not reply._drawing, "the held text")
        assert len(widths) >= 5 and max(widths) <= BLOCKS_PER_FLUSH
        assert reply.source == text
        streamed = await pages(pilot, app)
        await reply.update(text)
        assert await pages(pilot, app) == streamed


async def test_a_long_reply_resized_as_it_streams_reads_as_it_does_whole_at_the_new_width(
    make_app,
) -> None:
    text = long_reply(5)
    half = text.index("## Part 3")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await stream(pilot, app, text[:half])
        reply = app.transcript._current_reply()
        assert reply.query_children(FrozenPart)
        await pilot.resize_terminal(SIZE[0] - 30, SIZE[1])
        await until(pilot, lambda: not reply.query_children(FrozenPart), "the lines thawed")
        await stream(pilot, app, text[half:])
        assert reply.query_children(FrozenPart), "frozen again at the new width"
        streamed = await pages(pilot, app)
        await reply.update(text)
        assert await pages(pilot, app) == streamed


async def test_a_code_line_wider_than_the_chat_stays_scrollable_between_frozen_parts(
    make_app,
) -> None:
    wide = "```python\nanswer = 42  # " + "and so on " * 20 + "\n```"
    text = f"{long_reply(2)}\n\n{wide}\n\n{long_reply(3)}"
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await stream(pilot, app, text)
        reply = app.transcript._current_reply()
        fence = next(c for c in reply.children if isinstance(c, MarkdownFence))
        assert "answer = 42" in fence.code and fence.max_scroll_x > 0, "still a code block"
        assert len(reply.query_children(FrozenPart)) == 2, "the blocks before and after it"
        streamed = await pages(pilot, app)
        await reply.update(text)
        assert await pages(pilot, app) == streamed


async def test_text_in_the_frozen_lines_can_be_selected_and_copied(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await stream(pilot, app, long_reply(3))
        frozen = app.transcript._current_reply().query_one(FrozenPart)
        app.transcript.scroll_home(animate=False, immediate=True)
        await pilot.pause()
        lines = screen_lines(app)
        y = next(y for y in range(frozen.region.y, frozen.region.bottom) if "word0-3" in lines[y])
        x = lines[y].index("word0-3")
        compositor = app.screen._compositor
        widget, start = compositor.get_widget_and_offset_at(x, y)
        _, end = compositor.get_widget_and_offset_at(x + len("word0-3"), y)
        assert widget is frozen and start is not None and end is not None
        app.screen.selections = {frozen: Selection(start, end)}
        await pilot.pause()
        assert app.screen.get_selected_text() == "word0-3"
        shown = next(iter(compositor.render_strips()[y].crop(x, x + 1))).style
        selected = app.screen.get_component_rich_style("screen--selection")
        assert shown is not None and shown.bgcolor == selected.bgcolor


async def flush(pilot: Pilot[Any], app: WorkbenchApp, delta: str) -> None:
    """Stream `delta` into the chat's reply, and wait until it is written (in one flush, or a
    few for a long one) and drawn, and the screen settled."""
    transcript = app.transcript
    reply = transcript._current_reply()
    written = len(reply.writes)
    message = Message("assistant", reply.item.text)
    transcript.on_workbench_event(MessageUpdate(message=message, delta=delta))
    await until(pilot, lambda: len(reply.writes) > written, "the flush")
    await until(pilot, lambda: not reply._buffer and not reply._drawing, "the flushes drawn")
    for _ in range(5):
        await pilot.pause(0.02)


async def test_each_flush_of_a_streaming_reply_lays_the_screen_out_once(make_app) -> None:
    """A layout of the screen is the longest step a keystroke waits behind while a reply
    streams; Textual asked for a second one after each flush (the widgets it had just sized,
    and the mounts it had just made, asked again)."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        layouts: list[object] = []
        app.screen.screen_layout_refresh_signal.subscribe(app, layouts.append)

        async def layouts_of(delta: str) -> int:
            layouts.clear()
            await flush(pilot, app, delta)
            return len(layouts)

        await flush(pilot, app, long_reply(2))  # the chat scrolls from here on
        grown = [await layouts_of(f" word{n}" * 12) for n in range(3)]
        started = [await layouts_of(f"\n\nNext, part {n}:" + " more" * 12) for n in range(2)]
        assert grown + started == [1] * 5


async def test_a_flush_of_a_streaming_reply_redraws_neither_the_panels_nor_the_chats_frame(
    make_app,
) -> None:
    """Drawing is most of a flush's layout. The panels beside the chat do not change while a
    reply streams, nor does the chat's blank frame, yet each flush redrew the panels' scroll
    bars (Textual compared each tree's own virtual size with one it measured otherwise) and the
    frame (its virtual size grew)."""
    app = make_app()
    async with app.run_test(size=(SIZE[0], 14)) as pilot:  # low enough for the panels to scroll
        await opened(pilot)
        unchanged = [app.query_one(SkillPanel), app.query_one(TreePanel)]
        bars = [panel.vertical_scrollbar for panel in unchanged if panel.show_vertical_scrollbar]
        assert bars, "the panels scroll at this height"
        await flush(pilot, app, long_reply(2))  # the chat scrolls from here on
        drawn: Counter[str] = Counter()
        for name, widget in [("bar", bar) for bar in bars] + [("frame", app.transcript)]:
            draw = widget.render
            widget.render = lambda draw=draw, name=name: drawn.update([name]) or draw()
        for n in range(3):
            await flush(pilot, app, f" word{n}" * 12 + f"\n\nNext, part {n}:")
        assert app.transcript.scroll_y == app.transcript.max_scroll_y > 0, "the chat scrolled"
        assert drawn == Counter()
