"""`workbench --mode acp`: workbench as an Agent Client Protocol agent (JSON-RPC over stdio) that
editors such as Zed, JetBrains and Toad drive. Built on the protocol's Python SDK (`acp`).

One process serves every session its client opens. `session/new` opens a `Workbench` in the
client's folder, `session/load` resumes a stored one (replaying its branch), `session/list` lists
the project's sessions, `session/fork` makes a real branch with its own worktree (the SDK serves
fork only with its unstable protocol, switched on here), `session/prompt` runs a turn or a slash
command and streams it (`acp_updates`), a prompt during a turn steers it, `session/cancel`
aborts. Session modes are the enforcer's modes; the model is a config option. Where workbench
asks the user (project sub-agents, an edit or a command waiting for approval: `/approval`), the
client is asked with `session/request_permission`, an edit with the file's text before and after.

stdout carries the protocol only: fd 1 is pointed at stderr for the whole process (stray prints,
child processes), the protocol writes to a private copy of the real stdout, and logs go to the
log file.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import acp
from acp import RequestError
from acp.schema import (
    ForkSessionResponse,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    SessionInfo,
    SetSessionConfigOptionResponse,
)

from workbench.agent.store import MemoryStore
from workbench.config import find_project_root
from workbench.errors import WorkbenchError
from workbench.logfile import start_logging
from workbench.mcp.config import client_servers
from workbench.modes.acp_handshake import initialize_result
from workbench.modes.acp_session import AcpSession, Bench, Outbox
from workbench.modes.acp_stream import GuardedStdioStream
from workbench.modes.acp_updates import replay
from workbench.runtime import Workbench, WorkbenchOptions
from workbench.sessions.store.catalog import list_sessions

log = logging.getLogger(__name__)
BUFFER_LIMIT = 50 * 1024 * 1024


def _client_servers(servers: list[Any] | None) -> dict[str, Any] | None:
    """An editor's `mcpServers` (the SDK's models) in the `.mcp.json` shape; a fork or a
    session already open keeps the servers it started with."""
    if not servers:
        return None
    return client_servers([server.model_dump(by_alias=True) for server in servers])


def _failure(exc: WorkbenchError) -> RequestError:
    return RequestError.invalid_request({"message": exc.message, "hint": exc.hint})


def _absolute(cwd: str) -> Path:
    """`cwd` as the protocol requires it: an absolute path (a relative one would be read from
    wherever the agent process happens to run)."""
    if not cwd or not Path(cwd).is_absolute():
        raise RequestError.invalid_params(
            {"message": f"cwd must be an absolute path (the protocol requires it), not {cwd!r}"}
        )
    return Path(cwd)


def _folder(cwd: str) -> Path:
    """A session's folder, checked: a session writes its settings and store there."""
    folder = _absolute(cwd)
    if not folder.is_dir():
        raise RequestError.invalid_params({"message": f"cwd {cwd} is not an existing folder"})
    if not os.access(folder, os.W_OK | os.X_OK):
        raise RequestError.invalid_params(
            {"message": f"cwd {cwd} is not writable: a session keeps its files there"}
        )
    return folder


def prompt_text(blocks: list[Any]) -> str:
    """The prompt as one text: text blocks as they are, a link as `@uri`, an embedded text
    resource as a fenced block named by its uri."""
    parts: list[str] = []
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text":
            parts.append(block.text)
        elif kind == "resource_link":
            parts.append(f"@{block.uri}")
        elif kind == "resource" and hasattr(block.resource, "text"):
            parts.append(f"{block.resource.uri}:\n```\n{block.resource.text}\n```")
        else:
            raise RequestError.invalid_params({"message": f"{kind} content is not accepted"})
    return "\n".join(parts)


class WorkbenchAgent:
    """The ACP agent (duck-typed: an `acp.Agent` subclass would answer unimplemented methods
    with null instead of "method not found")."""

    def __init__(
        self, options: WorkbenchOptions, preload: Callable[[], object] | None = None
    ) -> None:
        self.options = options
        self._preload = preload
        """Started once the first session is open and answered: litellm's import would hold the
        interpreter through `session/new` (seconds), and a prompt comes only after it."""
        self.conn: Any = None
        self.outbox: Outbox
        self.sessions: dict[str, AcpSession] = {}
        self.benches: dict[str, Bench] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def on_connect(self, conn: Any) -> None:
        self.conn = conn
        self.outbox = Outbox(conn)

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        """Asked again after the hand-written answer (`acp_handshake`), answered the same."""
        return InitializeResponse.model_validate(initialize_result())

    # -- opening sessions ---------------------------------------------------------------------

    async def _open(
        self, cwd: str, session_id: str | None, branch: str | None, mcp_servers: list[Any] | None
    ) -> Bench:
        holder: list[Bench] = []
        options = dataclasses.replace(
            self.options,
            cwd=_folder(cwd),
            mcp_servers=_client_servers(mcp_servers),
            store=None if self.options.store is None else MemoryStore(),  # --no-session
            session_id=session_id,
            branch=branch,
            continue_session=False,
            confirm=lambda title, text: self._confirm(holder, title, text),
        )
        try:
            workbench = await Workbench.open(options)
        except WorkbenchError as exc:
            raise _failure(exc) from exc
        except OSError as exc:  # a folder that looked usable and was not (a read-only mount)
            log.exception("opening a session in %s failed", cwd)
            raise RequestError.invalid_params(
                {"message": f"cannot open a session in {cwd}: {exc.strerror or exc}"}
            ) from exc
        bench = Bench(workbench, self.outbox)
        workbench.answer_permissions(bench.request_permission)
        holder.append(bench)
        self.benches[workbench.state().session_id] = bench
        return bench

    def _later(self, bench: Bench, session: AcpSession, notes: list[str]) -> None:
        """Send the session's first updates once its response is out."""

        async def send() -> None:
            await asyncio.sleep(0)
            bench.release(session, notes)
            preload, self._preload = self._preload, None
            if preload is not None:
                preload()

        task = asyncio.get_running_loop().create_task(send())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @staticmethod
    def _mcp_meta(bench: Bench) -> dict[str, Any]:
        """The session's MCP servers (the editor's among them): each one's state and tools."""
        return {"workbench": {"mcpServers": bench.wb.mcp_report().to_json()}}

    async def new_session(
        self, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> NewSessionResponse:
        bench = await self._open(cwd, None, None, mcp_servers)
        state = bench.wb.state()
        session = AcpSession(f"{state.session_id}@{state.branch}", bench, state.branch)
        self.sessions[session.id] = session
        self._later(bench, session, [])
        return NewSessionResponse(
            session_id=session.id,
            modes=bench.modes(),
            config_options=bench.config_options(),
            field_meta=_with_sandbox(bench, self._mcp_meta(bench)),
        )

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> LoadSessionResponse:
        stored, _, branch = session_id.partition("@")
        if not stored.strip():
            raise RequestError.invalid_params(
                {"message": f"no session id in {session_id!r}: load ID or ID@BRANCH"}
            )
        bench = self.benches.get(stored)
        if bench is None:
            bench = await self._open(cwd, stored, branch or None, mcp_servers)
        session = self.sessions.get(session_id)
        if session is None:
            session = AcpSession(session_id, bench, branch or bench.wb.state().branch)
            self.sessions[session_id] = session
        if bench.wb.state().busy and bench.active is not session:
            raise RequestError.invalid_request({"message": "the session is working; try later"})
        try:
            await bench.activate(session)
        except WorkbenchError as exc:
            raise _failure(exc) from exc
        for update in replay(bench.wb.messages(), bench.wb.current.cwd):
            self.outbox.send(session.id, update)
        await self.outbox.flush()
        self._later(bench, session, [])
        return LoadSessionResponse(
            modes=bench.modes(),
            config_options=bench.config_options(),
            field_meta=_with_sandbox(bench, self._mcp_meta(bench)),
        )

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        """Each branch of each stored session of the project as `ID@BRANCH` (the current branch
        first), most recently active sessions first."""
        root = find_project_root(_absolute(cwd) if cwd else Path.cwd()).resolve()
        bench = next((b for b in self.benches.values() if b.wb.project_root == root), None)
        infos = bench.wb.list_sessions() if bench is not None else list_sessions(root)
        found: list[SessionInfo] = []
        for info in infos:
            title = info.name or f"session {info.id[:8]}"
            others = [b for b in info.branches if b != info.current_branch]
            found += [
                SessionInfo(
                    session_id=f"{info.id}@{branch}",
                    cwd=str(root),
                    title=title if branch == "main" else f"{title} ({branch})",
                    updated_at=_iso(info.last_activity),
                )
                for branch in [info.current_branch, *others]
            ]
        return ListSessionsResponse(sessions=found)

    async def fork_session(
        self, session_id: str, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> ForkSessionResponse:
        parent = self._session(session_id)
        bench = parent.bench
        try:
            await bench.activate(parent)
            branch = parent.branch
            result = await bench.wb.fork()
            await bench.wb.workspace_ready()
        except WorkbenchError as exc:
            raise _failure(exc) from exc
        parent.branch = branch
        stored = session_id.partition("@")[0]
        session = AcpSession(f"{stored}@{result.branch}", bench, result.branch)
        self.sessions[session.id] = session
        bench.active = session
        self._later(bench, session, [result.render_text()])
        return ForkSessionResponse(
            session_id=session.id,
            modes=bench.modes(),
            config_options=bench.config_options(),
            field_meta={
                **_with_sandbox(bench, self._mcp_meta(bench)),
                "workbench.fork": result.to_json(),
            },
        )

    def _session(self, session_id: str) -> AcpSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.resource_not_found(session_id)
        return session

    # -- in a session ---------------------------------------------------------------------------

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> None:
        await self._session(session_id).bench.set_mode(mode_id)

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        bench = self._session(session_id).bench
        if config_id != "model" or not isinstance(value, str):
            raise RequestError.invalid_params({"message": f"no config option {config_id!r}"})
        try:
            await bench.wb.set_model(value)
        except WorkbenchError as exc:
            raise _failure(exc) from exc
        return SetSessionConfigOptionResponse(config_options=bench.config_options())

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        session = self._session(session_id)
        reason = await session.bench.prompt(session, prompt_text(prompt))
        return PromptResponse(stop_reason=reason)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None and session.bench.running is session:
            await session.bench.cancel()

    async def _confirm(self, holder: list[Bench], title: str, text: str) -> bool:
        """`WorkbenchOptions.confirm`: the client answers (see `Bench.ask`)."""
        return await holder[0].ask(title, text) if holder else False

    async def close(self) -> None:
        for bench in self.benches.values():
            try:
                await bench.wb.close()
            except Exception:
                log.exception("closing a session failed")


def _iso(when: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(when, UTC).isoformat().replace("+00:00", "Z")


async def run(
    options: WorkbenchOptions, unread: bytes = b"", preload: Callable[[], object] | None = None
) -> int:
    """Serve ACP on stdin/stdout until the client closes stdin; `unread` is what
    `acp_handshake` read from stdin and left unanswered (the SDK reads it first); `preload`
    starts loading the model's library once the first session is open."""
    start_logging()  # warnings and errors (the SDK's too) to the log file, never stdout
    protocol_fd = os.dup(1)
    os.dup2(2, 1)  # prints and child processes now write to stderr
    sys.stdout = open(protocol_fd, "w", closefd=False)  # noqa: SIM115 (stdio_streams reads its fd)
    reader, writer = await acp.stdio_streams(limit=BUFFER_LIMIT)
    sys.stdout = sys.stderr
    if unread:
        reader.feed_data(unread)  # before the loop runs: ahead of anything read from the pipe
    agent = WorkbenchAgent(options, preload)
    stream = GuardedStdioStream(reader, writer)
    serving = asyncio.ensure_future(
        # the SDK answers "method not found" for what an agent lacks; its Protocol lists them all
        acp.run_agent(agent, stream, use_unstable_protocol=True)  # type: ignore[arg-type]
    )
    received: list[int] = []

    def stop(signum: int) -> None:  # the editor quits: runs are aborted and recorded, not cut
        received.append(signum)
        serving.cancel()

    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop, signum)
    try:
        await serving
    except asyncio.CancelledError:
        if not received:
            raise
    finally:
        await agent.close()
    return 128 + received[0] if received else 0


def _with_sandbox(bench: Bench, meta: dict[str, Any] | None) -> dict[str, Any]:
    """A session's `_meta`, with the box its commands run in (`workbench.sandbox`)."""
    return {**(meta or {}), "workbench.sandbox": {"mode": bench.wb.state().sandbox}}
