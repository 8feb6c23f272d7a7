"""Helpers for the app's tests: waiting on the app, reading what the chat shows, typing."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from rich.console import Console, RenderableType
from textual._xterm_parser import XTermParser
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Tree

from workbench.runtime import Workbench, WorkbenchOptions
from workbench.tui.app import WorkbenchApp
from workbench.tui.items import Item, ToolItem, UserItem

ROOT = Path(__file__).resolve().parents[2]
SIZE = (130, 40)
PICTURE_SIZE = (140, 42)


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def make_project(folder: Path) -> Path:
    """A git project (local identity, one commit) with the example skills and settings."""
    shutil.copytree(ROOT / "skills", folder / "skills")
    (folder / ".pi").mkdir()
    shutil.copy(ROOT / ".pi" / "settings.json", folder / ".pi" / "settings.json")
    (folder / "README.md").write_text("demo project\n")
    git(folder, "init", "--quiet", "--initial-branch=main")
    git(folder, "config", "user.name", "Test User")
    git(folder, "config", "user.email", "test@example.com")
    git(folder, "add", "--all")
    git(folder, "commit", "--quiet", "-m", "initial")
    return folder


def write_script(
    project: Path, *turns: dict[str, Any], name: str = "turns.json", **extra: Any
) -> str:
    """A scripted model's turns written into the project, where git ignores them (they are
    no work of the session's: a fork would report them as left behind); the model string."""
    body: Any = {"turns": list(turns), **extra} if extra else list(turns)
    (project / name).write_text(json.dumps(body))
    exclude = project / ".git" / "info" / "exclude"
    if exclude.parent.is_dir():
        with exclude.open("a") as ignored:
            ignored.write(f"/{name}\n")
    return f"scripted:{name}"


def build_app(project: Path, pictures: bool = True, **options: Any) -> WorkbenchApp:
    """The app on `project`, as `workbench` opens it there; `options` are `WorkbenchOptions`
    fields (model, api_base, ...). Cursor blink and animations are off."""

    async def open_workbench(confirm: Callable[[str, str], Awaitable[bool]]) -> Workbench:
        return await Workbench.open(WorkbenchOptions(cwd=project, confirm=confirm, **options))

    app = WorkbenchApp(open_workbench, cursor_blink=False, pictures=pictures)
    app.animation_level = "none"
    return app


KEY_NAMES = {" ": "space", "/": "slash", "-": "minus", ".": "full_stop", ",": "comma"}


async def until(
    pilot: Pilot[Any], condition: Callable[[], object], what: str, timeout: float = 15
) -> None:
    """Let the app run until `condition()` holds; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.02)


S = TypeVar("S", bound=Screen[Any])


async def screen_shown(pilot: Pilot[Any], kind: type[S], what: str, timeout: float = 15) -> S:
    """Let the app run until it shows a `kind` screen that has mounted, and return it: a pushed
    screen is on top a step before its `on_mount` fills and focuses it."""
    app = pilot.app
    shown = lambda: isinstance(app.screen, kind) and app.screen.is_mounted  # noqa: E731
    await until(pilot, shown, what, timeout)
    screen = app.screen
    assert isinstance(screen, kind)
    return screen


async def terminal_keys(pilot: Pilot[Any], data: str, burst: bool = False) -> None:
    """Send `data` as a terminal does, through Textual's own input parser: Alt+S is "\x1bs" and
    arrives as `alt+s` carrying the character "s" (Pilot's `press` leaves the character out).
    Key by key, letting the app run after each; `burst`: all at once, as a paste or
    `tmux send-keys "text" Enter` arrives."""
    parser = XTermParser()
    keys = [*parser.feed(data), *parser.feed("")]  # the end resolves a pending Esc sequence
    for key in keys:
        key.set_sender(pilot.app)
        pilot.app._driver.send_message(key)  # as the terminal driver delivers input
        if not burst:
            await pilot.pause()
    await pilot.pause()


def app_of(pilot: Pilot[Any]) -> WorkbenchApp:
    assert isinstance(pilot.app, WorkbenchApp)
    return pilot.app


async def opened(pilot: Pilot[Any]) -> WorkbenchApp:
    app = app_of(pilot)
    await until(pilot, app.opened.is_set, "the session to open")
    await pilot.pause()
    return app


def busy(app: WorkbenchApp) -> bool:
    return app.workbench is not None and app.workbench.state().busy


async def idle(pilot: Pilot[Any]) -> None:
    """Wait until the agent has stopped and the app has drawn what it ended with."""
    app = app_of(pilot)
    await until(pilot, lambda: not busy(app) and not app.busy, "the agent to stop")
    await pilot.pause(0.1)
    await pilot.pause()


async def ask(pilot: Pilot[Any], app: WorkbenchApp, text: str) -> None:
    """Send `text` from the editor and wait until the agent has answered it."""
    app.editor.focus()
    app.editor.insert(text)
    await pilot.press("enter")
    await until(pilot, lambda: text in user_texts(app), "the prompt in the chat")
    await idle(pilot)


async def type_text(pilot: Pilot[Any], text: str) -> None:
    """Type `text` key by key, as a user would."""
    await pilot.press(*(KEY_NAMES.get(c, c) for c in text))


def items(app: WorkbenchApp) -> list[Item]:
    """Every record the chat shows, history first, then the live rows."""
    transcript = app.transcript
    return [*transcript.history.items, *(row.item for row in transcript.live)]  # type: ignore[attr-defined]


def tools(app: WorkbenchApp) -> list[ToolItem]:
    return [i for i in items(app) if isinstance(i, ToolItem)]


def user_texts(app: WorkbenchApp) -> list[str]:
    return [i.text for i in items(app) if isinstance(i, UserItem)]


def chat_text(app: WorkbenchApp) -> str:
    """The collapsed text of every record (replies: their whole text)."""
    lines = []
    for item in items(app):
        lines += [t.plain for t in item.summary()]
        lines.append(getattr(item, "text", ""))
    return "\n".join(lines)


def plain(renderable: RenderableType, width: int = 120) -> str:
    """What a Rich renderable reads as, without colour."""
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def tree_lines(tree: Tree[Any]) -> list[str]:
    """The labels of a Tree widget's nodes, depth first (what the panel lists)."""
    lines: list[str] = []
    stack = list(reversed(tree.root.children))
    while stack:
        node = stack.pop()
        lines.append(node.label.plain)
        stack.extend(reversed(node.children))
    return lines
