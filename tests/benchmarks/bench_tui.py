"""The app's speed (a script, not part of the test run).

    python tests/benchmarks/bench_tui.py [--runs N] [--only first-frame|stream|long-session|sweep]
        [--calls fork|here] [--chunks N]

1. First frame: `workbench` as a whole process in a pseudo-terminal, in a project holding the
   example skill graph, from spawning the process until the terminal has received the first
   frame (the editor's placeholder), and until the session is open (the skill panel's title with
   the skill count). Then Ctrl+C twice quits it.
2. Stream: a 2,000-chunk reply (`--chunks`) through the real litellm path from the local
   OpenAI-compatible server (its own process, streaming as fast as it can), in the app (Pilot,
   headless): from the prompt to the finished reply and until the chat has written all of it,
   how often the Markdown was written, and how long keystrokes typed meanwhile took to reach the
   editor (sent from a thread on a fixed beat, as the terminal driver sends them). The model's
   calls are made as `workbench` makes them: by a fork that imports litellm
   (`modes.app_start`); `--calls here` makes them in the app's own process.
3. Long session: opening a branch of 10,000 entries (kept in memory, and stored in git): from
   creating the app until the chat shows the branch, until a keystroke sent then is handled, and
   until the skill graph and the conversation tree are shown too. In-process: Textual is imported
   already (the first-frame figure covers the imports).
4. Sweep: `/sweep` of 4 variants at once in the app, each run a child process streaming a long
   reply from the local server; keys sent to the sweep view meanwhile (Down: its cursor), on the
   same fixed beat, while it redraws each run's row.

Figures are medians over N runs. The machine is shared; expect noise.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import fcntl
import json
import os
import pty
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from textual import events

ROOT = Path(__file__).resolve().parents[2]
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(ROOT / "tests"))

FIRST_FRAME_MARK = b"essage the agent"  # the cursor cell splits off the "M"
READY_MARK = "Skills · 16".encode()
SIZE = (40, 140)
KEY_INTERVAL = 0.02
"""Between keystrokes while a reply streams: a fast typist (50 keys a second)."""


def example_project(base: Path) -> Path:
    """A project folder with the example skill graph and this repository's settings."""
    project = base / "project"
    shutil.copytree(ROOT / "skills", project / "skills")
    shutil.copytree(ROOT / ".pi", project / ".pi", ignore=shutil.ignore_patterns("sessions*"))
    return project


def _spawn(project: Path, home: Path) -> tuple[int, int]:
    pid, fd = pty.fork()
    if pid == 0:  # the child: a terminal of a fixed size, a clean home, the app
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", *SIZE, 0, 0))
        os.chdir(project)
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(home),
            "TERM": "xterm-256color",
            "COLORTERM": "truecolor",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        }
        os.execve(sys.executable, [sys.executable, "-m", "workbench"], env)
    return pid, fd


def _read_until(fd: int, marks: list[bytes], start: float, timeout: float) -> list[float]:
    """The time after `start` at which each mark first appeared in the output, in order."""
    seen = b""
    found: list[float] = []
    deadline = start + timeout
    while len(found) < len(marks) and time.perf_counter() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.01)
        if not ready:
            continue
        try:
            seen += os.read(fd, 65536)
        except OSError:
            break
        while len(found) < len(marks) and marks[len(found)] in seen:
            found.append(time.perf_counter() - start)
    if len(found) < len(marks):
        raise RuntimeError(
            f"no {marks[len(found)]!r} within {timeout} s; output ends {seen[-300:]!r}"
        )
    return found


def first_frame(runs: int) -> None:
    firsts, readies = [], []
    with tempfile.TemporaryDirectory() as tmp:
        project = example_project(Path(tmp))
        home = Path(tmp) / "home"
        home.mkdir()
        for _ in range(runs):
            start = time.perf_counter()
            pid, fd = _spawn(project, home)
            try:
                first, ready = _read_until(fd, [FIRST_FRAME_MARK, READY_MARK], start, 30)
                firsts.append(first)
                readies.append(ready)
                os.write(fd, b"\x03")
                time.sleep(0.1)
                os.write(fd, b"\x03")
                _read_until(fd, [b"\x1b[?1049l"], time.perf_counter(), 10)  # left the screen
            finally:
                os.kill(pid, signal.SIGKILL) if _alive(pid) else None
                os.waitpid(pid, 0)
                os.close(fd)
    print(f"first frame: median {statistics.median(firsts):.3f} s (runs: {_list(firsts)})")
    print(
        f"session open (skills shown): median {statistics.median(readies):.3f} s ({_list(readies)})"
    )


def _app(open_workbench: Any) -> Any:
    from workbench.tui.app import WorkbenchApp

    app = WorkbenchApp(open_workbench, cursor_blink=False)
    app.animation_level = "none"
    return app


async def _until(pilot: Any, condition: Any, timeout: float = 60) -> None:
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise RuntimeError("timed out")
        await pilot.pause(0.005)


async def _quietly_until(condition: Any, timeout: float = 60) -> None:
    """Wait for `condition` while keys are timed, without Pilot: each `pilot.pause` posts a
    callback to every widget and forces a screen update, work the app does not do on its own,
    which the keys then queued behind."""
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise RuntimeError("timed out")
        await asyncio.sleep(0.005)


def _markdown_writes() -> list[float]:
    """Record when any Markdown widget is appended to (the stream's flushes)."""
    from textual.widgets import Markdown

    times: list[float] = []
    append = Markdown.append

    def counted(self: Markdown, markdown: str) -> Any:
        times.append(time.perf_counter())
        return append(self, markdown)

    Markdown.append = counted  # type: ignore[method-assign]
    return times


async def _keystroke(app: Any) -> float:
    """Send one key as the terminal driver does; the time until the editor has it."""
    before = len(app.editor.text)
    pressed = time.perf_counter()
    app.post_message(events.Key("x", "x"))
    while len(app.editor.text) == before:
        await asyncio.sleep(0.001)
    return time.perf_counter() - pressed


def reply_pieces(count: int) -> list[str]:
    """A reply in `count` chunks shaped like a model's: paragraphs, headings, a list, code."""
    pieces = []
    for i in range(count):
        if i % 400 == 0:
            pieces.append(f"\n\n## Part {i // 400 + 1}\n\n")
        elif i % 400 == 200:
            pieces.append("\n\n```python\ndef check(value):\n    return value > 0\n```\n\n")
        elif i % 400 in (300, 310, 320):
            pieces.append(f"\n- point {i}: ")
        elif i % 60 == 0:
            pieces.append("\n\nNext, ")
        else:
            pieces.append(f"word{i} ")
    return pieces


class Typist:
    """Keys sent from a thread every `KEY_INTERVAL`, as the terminal driver's input thread sends
    them: on time whatever the event loop is doing, so a busy loop shows in the latency. Each
    key's latency runs from sending it to the editor having it (keys are handled in order)."""

    def __init__(self, app: Any, key: str = "x") -> None:
        """`key` "x" is typed into the editor; "down" moves the sweep view's cursor."""
        from textual.widgets import DataTable

        from workbench.tui.components.editor import PromptEditor

        self.app, self.key = app, key
        self.sent: list[float] = []
        self.handled: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._type, daemon=True)
        handle = PromptEditor._on_key
        move = DataTable.action_cursor_down

        async def timed(editor: Any, event: events.Key) -> None:
            await handle(editor, event)
            if event.key == "x":
                self.handled.append(time.perf_counter())

        def moved(table: Any) -> None:
            move(table)
            self.handled.append(time.perf_counter())

        PromptEditor._on_key = timed  # type: ignore[method-assign]
        DataTable.action_cursor_down = moved  # type: ignore[method-assign]
        self._restore = lambda: (
            setattr(PromptEditor, "_on_key", handle),
            setattr(DataTable, "action_cursor_down", move),
        )

    def _type(self) -> None:
        due = time.perf_counter()
        while not self._stop.is_set():
            self.sent.append(time.perf_counter())
            self.app.post_message(events.Key(self.key, "x" if self.key == "x" else None))
            due += KEY_INTERVAL
            self._stop.wait(max(due - time.perf_counter(), 0))

    def start(self) -> None:
        self._thread.start()

    async def stop(self) -> list[float]:
        """Stop typing, wait for the keys sent to be handled; their latencies."""
        self._stop.set()
        self._thread.join()
        while len(self.handled) < len(self.sent):
            await asyncio.sleep(0.005)
        self._restore()
        return [done - sent for sent, done in zip(self.sent, self.handled, strict=True)]


@contextlib.contextmanager
def _server_process(script: list[dict[str, Any]], folder: Path) -> Iterator[str]:
    """The local OpenAI-compatible server in a process of its own, as a real server is (in this
    process its thread would compete with the app for the interpreter lock); its URL."""
    script_file = folder / "script.json"
    script_file.write_text(json.dumps(script))
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "support" / "openai_server.py"), str(script_file)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        yield server.stdout.readline().strip()
    finally:
        server.terminate()
        server.wait()


async def _stream_once(project: Path, chunks: int) -> tuple[float, float, list[float], list[float]]:
    from workbench.runtime import Workbench, WorkbenchOptions

    pieces = reply_pieces(chunks)
    writes = _markdown_writes()
    with _server_process([{"pieces": pieces}], project.parent) as url:
        options = WorkbenchOptions(cwd=project, model="openai/bench", api_base=url, api_key="none")
        app = _app(lambda confirm: Workbench.open(options))
        async with app.run_test(size=(SIZE[1], SIZE[0])) as pilot:
            await _until(pilot, app.opened.is_set)
            received: list[str] = []
            app.workbench.subscribe(
                lambda e: (
                    received.append(e.message.text)
                    if e.type == "message_end" and e.message.role == "assistant"
                    else None
                )
            )
            app.editor.insert("stream please")
            start = time.perf_counter()
            app.post_message(events.Key("enter", "\r"))  # as the terminal sends it
            await _until(pilot, lambda: app.busy)  # text right after Enter would be a paste
            typist = Typist(app)
            typist.start()
            await _quietly_until(lambda: bool(received))
            keys = await typist.stop()
            done = time.perf_counter() - start
            await _until(pilot, lambda: app.transcript._reply is None)
            reply = app.transcript.live[-1]
            words = received[0].count("word")
            await _until(pilot, lambda: reply.finished and reply.source.count("word") == words)
            rendered = time.perf_counter() - start
    flushes = [t for t in writes if t >= start]
    return done, rendered, flushes, keys


def stream(runs: int, calls: str, chunks: int = 2000) -> None:
    from workbench.agent.models import call_process
    from workbench.agent.models.litellm_client import preload
    from workbench.modes.headless_start import calls_elsewhere

    if calls == "fork" and calls_elsewhere(quiet=True):  # as the app starts (`app_start`)
        asyncio.run(call_process.ready())  # its import over before the first run is timed
    else:
        preload().join()  # litellm imported and warmed here, off the loop

    dones, shown, rates, latencies = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        project = example_project(Path(tmp))
        for _ in range(runs):
            done, rendered, flushes, keys = asyncio.run(_stream_once(project, chunks))
            dones.append(done)
            shown.append(rendered)
            rates.append(len(flushes) / max(done, 1e-9))
            latencies += keys
    print(
        f"{chunks}-chunk reply (litellm, local server): streamed in median "
        f"{statistics.median(dones):.2f} s ({_list(dones)}), fully shown after "
        f"{statistics.median(shown):.2f} s; Markdown writes per second: median "
        f"{statistics.median(rates):.1f} (limit 20)"
    )
    _print_keys("keystrokes while streaming", latencies)


def _print_keys(what: str, latencies: list[float]) -> None:
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    print(
        f"{what}: {len(latencies)}, handled in median "
        f"{statistics.median(latencies) * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, "
        f"worst {ordered[-1] * 1000:.0f} ms (goal: p99 under 100 ms over 500+ keystrokes)"
    )


async def _sweep_once(project: Path, width: int) -> list[float]:
    """`/sweep` of `width` variants at once, each run streaming a long reply from the local
    server into its own child process; keys sent to the sweep view (its cursor) meanwhile."""
    from workbench.runtime import Workbench, WorkbenchOptions

    replies = [{"pieces": reply_pieces(1500), "delay_s": 0.004}] * width
    with _server_process(replies, project.parent) as url:
        options = WorkbenchOptions(cwd=project, model="openai/a", api_base=url, api_key="none")
        app = _app(lambda confirm: Workbench.open(options))
        async with app.run_test(size=(SIZE[1], SIZE[0])) as pilot:
            await _until(pilot, app.opened.is_set)
            variants = " ".join(f"--variant model=openai/v{n}" for n in range(width))
            app.editor.insert(f"/sweep {variants} --jobs {width} -- stream please")
            app.post_message(events.Key("enter", "\r"))
            board = app.sweep_board
            running = lambda: [r for r in board.sweep.runs if r.outcome == "running"]  # noqa: E731
            await _until(pilot, lambda: board.sweep is not None and len(running()) == width, 120)
            typist = Typist(app, "down")
            typist.start()
            await _quietly_until(lambda: not running(), 300)
            return await typist.stop()


def sweep_running(runs: int, width: int = 4) -> None:
    """Stream: keys while a sweep of `width` runs streams, its view open (redrawn on each
    progress event)."""
    latencies: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        project = example_project(Path(tmp))
        for command in ("init -q", "add -A", "-c user.name=b -c user.email=b@b commit -qm p"):
            subprocess.run(["git", *command.split()], cwd=project, check=True)
        for _ in range(runs):
            latencies += asyncio.run(_sweep_once(project, width))
    _print_keys(f"keystrokes while a sweep of {width} runs streams", latencies)


def _conversation(entries: int) -> Iterator[Any]:
    """`entries` messages in turns: a question, a read, its result, an answer."""
    from workbench.messages import Message, ToolCall

    for turn in range(entries // 4):
        call = ToolCall(f"c{turn}", "read", {"path": f"src/module_{turn}.py"})
        yield Message("user", f"Question {turn}: what does module {turn} do?")
        yield Message("assistant", f"Let me read module {turn}.", tool_calls=[call])
        yield Message(
            "tool_result", f"def f{turn}():\n    return {turn}\n" * 20, tool_call_id=call.id
        )
        yield Message("assistant", f"Module {turn} defines **f{turn}**, which returns {turn}.")


def _memory_store(entries: int) -> Any:
    from workbench.agent.store import MemoryStore

    store = MemoryStore()
    for message in _conversation(entries):
        asyncio.run(store.append(message.role, message.to_dict()))
    return store


def _git_session(project: Path, entries: int) -> str:
    """A session stored in the project's git repository; its id."""
    from workbench.sessions.session import Session

    session = Session.create(project)
    for message in _conversation(entries):
        session.store.append_now(message.role, message.to_dict())
    session.close()
    return session.id


async def _open_long(project: Path, entries: int, **options: Any) -> tuple[float, float, float]:
    from workbench.runtime import Workbench, WorkbenchOptions

    start = time.perf_counter()
    app = _app(
        lambda confirm: Workbench.open(WorkbenchOptions(cwd=project, model="demo", **options))
    )
    async with app.run_test(size=(SIZE[1], SIZE[0])) as pilot:
        await _until(pilot, lambda: len(app.transcript.history.items) > entries // 2)
        await pilot.pause()
        shown = time.perf_counter() - start
        await _keystroke(app)
        typed = time.perf_counter() - start
        await _until(pilot, app.opened.is_set)
        whole = time.perf_counter() - start
    return shown, typed, whole


def long_session(runs: int, entries: int = 10_000) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        project = example_project(Path(tmp))
        for label, options in (
            ("in memory", {"store": _memory_store(entries)}),
            ("stored in git", {"session_id": _git_session(project, entries)}),
        ):
            shown, typed, whole = zip(
                *(asyncio.run(_open_long(project, entries, **options)) for _ in range(runs)),
                strict=True,
            )
            print(
                f"{entries}-entry session ({label}): chat shown after median "
                f"{statistics.median(shown):.2f} s ({_list(list(shown))}), a keystroke handled "
                f"after {statistics.median(typed):.2f} s, skills and tree shown after "
                f"{statistics.median(whole):.2f} s"
            )


def _alive(pid: int) -> bool:
    done, _ = os.waitpid(pid, os.WNOHANG)
    return done == 0


def _list(values: list[float]) -> str:
    return ", ".join(f"{v:.3f}" for v in values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", choices=("first-frame", "stream", "long-session", "sweep"))
    parser.add_argument(
        "--chunks", type=int, default=2000, help="stream: the reply's pieces (default 2,000)"
    )
    parser.add_argument(
        "--calls",
        choices=("fork", "here"),
        default="fork",
        help="stream: the model's calls made by a fork, as the app makes them, or in its process",
    )
    args = parser.parse_args()
    if args.only in (None, "first-frame"):
        first_frame(args.runs)
    if args.only in (None, "stream"):
        stream(args.runs, args.calls, args.chunks)
    if args.only in (None, "long-session"):
        long_session(args.runs)
    if args.only in (None, "sweep"):
        sweep_running(max(1, args.runs // 2))


if __name__ == "__main__":
    main()
