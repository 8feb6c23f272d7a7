"""`workbench --mode rpc`: JSON commands on stdin (one per line), the event stream on stdout.

Editors and other front ends drive the whole workbench through this. Every command may carry an
`id`; each understood command is answered by a `response` line (`command`, `id`, `success`, and
`data` or `error`/`hint`) while its effects arrive as ordinary events. A line that cannot be
understood (not JSON, no known `type`, a missing field) gets an `error` event; the process goes on.
stdin closing ends the process once the current run has finished; stdout closing (the reader went
away) aborts the run and ends the process with 141.

Commands: prompt {text}, steer {text}, follow_up {text}, abort, get_state, compact {focus?},
set_model {model}, get_queue, edit_queue {queue, index, text}, remove_queued {queue, index},
clear_queue {queue?}; the conversation tree: tree, sessions, status {branch?}, diff {branch?,
path?}, fork {name?, at?}, navigate {target, summarize?}, edit_and_resend {target} (answers the
question's text), switch_branch {branch}, commit {message?}, merge {branch, into?,
remove_worktree?}, label {label, target?}, skills_status. Each
tree command answers with the JSON of its result (`diff`: {"diff": unified diff text}, empty when
nothing changed; `fork` once the worktree is checked out); a merge conflict's failed response
also lists the conflicting `files`. More register with `@command("name")`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from workbench.agent.events import ErrorEvent
from workbench.errors import WorkbenchError
from workbench.modes.event_lines import EventLines
from workbench.modes.headless import EXIT_OK, Interrupts
from workbench.runtime import Workbench, WorkbenchOptions
from workbench.sessions.workspaces.merge import MergeConflict

log = logging.getLogger(__name__)
Handler = Callable[[Workbench, dict[str, Any]], Awaitable[Any]]
COMMANDS: dict[str, Handler] = {}
SLOW_COMMANDS = {"set_model"}
"""Run in the background so that, say, `abort` is not stuck behind a model switch."""


class Malformed(WorkbenchError):
    """The command line cannot be understood."""


def command(name: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        COMMANDS[name] = handler
        return handler

    return register


def field(cmd: dict[str, Any], key: str, kind: type = str) -> Any:
    value = cmd.get(key)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise Malformed(
            f"command {cmd.get('type')!r} needs {key!r} as {kind.__name__}",
            f'for example {{"type": "{cmd.get("type")}", "{key}": ...}}',
        )
    return value


@command("prompt")
async def _prompt(workbench: Workbench, cmd: dict[str, Any]) -> None:
    await workbench.prompt(field(cmd, "text"))


@command("steer")
async def _steer(workbench: Workbench, cmd: dict[str, Any]) -> None:
    await workbench.steer(field(cmd, "text"))


@command("follow_up")
async def _follow_up(workbench: Workbench, cmd: dict[str, Any]) -> None:
    await workbench.follow_up(field(cmd, "text"))


@command("abort")
async def _abort(workbench: Workbench, cmd: dict[str, Any]) -> None:
    await workbench.abort()


@command("get_state")
async def _get_state(workbench: Workbench, cmd: dict[str, Any]) -> dict[str, Any]:
    return workbench.state().to_dict()


@command("compact")
async def _compact(workbench: Workbench, cmd: dict[str, Any]) -> None:
    focus = cmd.get("focus")
    await workbench.compact(focus if isinstance(focus, str) else None)


@command("set_model")
async def _set_model(workbench: Workbench, cmd: dict[str, Any]) -> dict[str, Any]:
    await workbench.set_model(field(cmd, "model"))
    return {"model": workbench.state().model}


@command("get_queue")
async def _get_queue(workbench: Workbench, cmd: dict[str, Any]) -> dict[str, list[str]]:
    return workbench.queues()


@command("edit_queue")
async def _edit_queue(workbench: Workbench, cmd: dict[str, Any]) -> None:
    workbench.edit_queued(field(cmd, "queue"), field(cmd, "index", int), field(cmd, "text"))


@command("remove_queued")
async def _remove_queued(workbench: Workbench, cmd: dict[str, Any]) -> None:
    workbench.remove_queued(field(cmd, "queue"), field(cmd, "index", int))


@command("clear_queue")
async def _clear_queue(workbench: Workbench, cmd: dict[str, Any]) -> None:
    queue = cmd.get("queue")
    # a name that is no queue is the runtime's to refuse, with the names it has
    workbench.clear_queue(queue if isinstance(queue, str) else None)  # type: ignore[arg-type]


def optional(cmd: dict[str, Any], key: str, kind: type = str) -> Any:
    """`field` for a key that may be absent or null."""
    return None if cmd.get(key) is None else field(cmd, key, kind)


@command("tree")
async def _tree(workbench: Workbench, cmd: dict[str, Any]) -> dict[str, Any]:
    return (await workbench.tree()).to_json()


@command("sessions")
async def _sessions(workbench: Workbench, cmd: dict[str, Any]) -> list[dict[str, Any]]:
    return [info.to_json() for info in workbench.list_sessions()]


@command("status")
async def _status(workbench: Workbench, cmd: dict[str, Any]) -> dict[str, Any]:
    return (await workbench.status(optional(cmd, "branch"))).to_json()


@command("diff")
async def _diff(workbench: Workbench, cmd: dict[str, Any]) -> dict[str, Any]:
    return {"diff": await workbench.diff(optional(cmd, "branch"), optional(cmd, "path"))}


@command("fork")
async def _fork(workbench: Workbench, cmd: dict[str, Any]) -> dict[str, Any]:
    result = await workbench.fork(optional(cmd, "name"), optional(cmd, "at"))
    await workbench.workspace_ready()  # a script may go straight to the worktree's files
    return result.to_json()


@command("navigate")
async def _navigate(workbench: Workbench, cmd: dict[str, Any]) -> dict[str, Any]:
    summarize = bool(optional(cmd, "summarize", bool))
    return (await workbench.navigate(field(cmd, "target"), summarize)).to_json()


@command("edit_and_resend")
async def _edit_and_resend(workbench: Workbench, cmd: dict[str, Any]) -> dict[str, Any]:
    text = await workbench.edit_and_resend(field(cmd, "target"))
    return {"text": text, "branch": workbench.state().branch}


@command("switch_branch")
async def _switch_branch(workbench: Workbench, cmd: dict[str, Any]) -> dict[str, Any]:
    await workbench.switch_branch(field(cmd, "branch"))
    return {"branch": workbench.state().branch}


@command("commit")
async def _commit(workbench: Workbench, cmd: dict[str, Any]) -> dict[str, Any]:
    return (await workbench.commit(optional(cmd, "message"))).to_json()


@command("merge")
async def _merge(workbench: Workbench, cmd: dict[str, Any]) -> dict[str, Any]:
    remove = optional(cmd, "remove_worktree", bool)
    result = await workbench.merge(field(cmd, "branch"), optional(cmd, "into"), remove)
    return result.to_json()


@command("label")
async def _label(workbench: Workbench, cmd: dict[str, Any]) -> dict[str, Any]:
    entry = await workbench.label(field(cmd, "label"), optional(cmd, "target"))
    return {"id": entry.id, "target": entry.payload["target"], "label": entry.payload["label"]}


@command("skills_status")
async def _skills_status(workbench: Workbench, cmd: dict[str, Any]) -> dict[str, str]:
    return {"text": workbench.skills_status()}


def parse(line: str) -> dict[str, Any]:
    """A command object from one line, or Malformed saying what is wrong."""
    try:
        cmd = json.loads(line)
    except json.JSONDecodeError as exc:
        raise Malformed(f"not JSON: {exc.msg} at column {exc.colno}", 'send {"type": ...}') from exc
    if not isinstance(cmd, dict):
        raise Malformed("a command must be a JSON object", 'send {"type": ...}')
    if cmd.get("type") not in COMMANDS:
        raise Malformed(
            f"unknown command type {cmd.get('type')!r}", f"commands: {', '.join(COMMANDS)}"
        )
    return cmd


class Session:
    """Reads commands, dispatches them, writes responses next to the events."""

    def __init__(self, workbench: Workbench, lines: EventLines) -> None:
        self.workbench = workbench
        self.lines = lines
        self.background: set[asyncio.Task[None]] = set()

    async def handle(self, line: str) -> None:
        try:
            cmd = parse(line)
            if cmd["type"] in SLOW_COMMANDS:
                task = asyncio.create_task(self._run(cmd))
                self.background.add(task)
                task.add_done_callback(self.background.discard)
            else:
                await self._run(cmd)
        except Malformed as exc:
            self.lines.event(ErrorEvent(exc.message, exc.hint))

    async def _run(self, cmd: dict[str, Any]) -> None:
        reply: dict[str, Any] = {"type": "response", "command": cmd["type"], "id": cmd.get("id")}
        try:
            data = await COMMANDS[cmd["type"]](self.workbench, cmd)
        except Malformed as exc:
            self.lines.event(ErrorEvent(exc.message, exc.hint))
            return
        except WorkbenchError as exc:
            failure = {**reply, "success": False, "error": exc.message, "hint": exc.hint}
            if isinstance(exc, MergeConflict):
                failure["files"] = exc.files
            self.lines.write(failure)
            return
        except Exception as exc:  # a bug must not end the session the client is driving
            log.exception("rpc command %s failed", cmd["type"])
            self.lines.write({**reply, "success": False, "error": repr(exc), "hint": None})
            return
        self.lines.write({**reply, "success": True, "data": data})


def _read_stdin(loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[str | None]) -> None:
    """A daemon thread: works for pipes, files and terminals alike, and never blocks exit."""
    for line in sys.stdin:
        loop.call_soon_threadsafe(queue.put_nowait, line)
    loop.call_soon_threadsafe(queue.put_nowait, None)


async def run(options: WorkbenchOptions) -> int:
    workbench = await Workbench.open(options)
    incoming: asyncio.Queue[str | None] = asyncio.Queue()
    interrupts = Interrupts(workbench, on_signal=lambda: incoming.put_nowait(None))
    lines = EventLines(on_closed=interrupts.output_closed)
    lines.header(workbench)
    workbench.subscribe(lines.event)
    session = Session(workbench, lines)
    interrupts.install()
    reader = threading.Thread(
        target=_read_stdin, args=(asyncio.get_running_loop(), incoming), daemon=True
    )
    reader.start()
    try:
        while (line := await incoming.get()) is not None:
            if line.strip():
                await session.handle(line)
        await asyncio.gather(*session.background)
        if interrupts.signal is not None:  # a run may have started while the abort went out
            await workbench.abort()
        await workbench.wait_idle()
    finally:
        await workbench.close()
    return interrupts.exit_code(EXIT_OK)
