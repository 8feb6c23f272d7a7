"""The path from a tool's result to the next request: what stands on it is only what must."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import threading
from pathlib import Path
from typing import Any

from support.openai_server import OpenAIServer, Reply
from support.turns import run
from support.workbench_process import workbench_command

from workbench.agent.models import own_loop
from workbench.agent.models.client import ModelInfo, ModelRequest, TextDelta
from workbench.agent.models.dispatch import DispatchExecutor
from workbench.agent.models.litellm_client import LitellmModel
from workbench.agent.store import messages_of
from workbench.messages import Message
from workbench.runtime import Workbench, WorkbenchOptions
from workbench.sessions.session import Session
from workbench.skills.graph import SkillGraph


async def test_a_model_call_goes_out_while_the_loops_threads_are_all_busy(
    server: OpenAIServer,
) -> None:
    """litellm's dispatch of the next call runs where the call is made: a reply does not wait
    for whatever else keeps the loop's worker threads busy (a session listing, an MCP start)."""
    own_loop.claim()
    asyncio.get_running_loop().set_default_executor(DispatchExecutor(max_workers=1))
    server.add(Reply(text="first"), Reply(text="next"))
    model = LitellmModel(ModelInfo("openai/test-model"), api_base=server.url, api_key="k")
    request = ModelRequest("system", [Message(role="user", text="hi")])

    async def reply() -> str:
        return "".join([d.text async for d in model.stream(request) if isinstance(d, TextDelta)])

    assert await reply() == "first"  # the OpenAI SDK's one-off look-ups (its platform) done
    release = threading.Event()
    busy = asyncio.ensure_future(asyncio.to_thread(release.wait))  # the one worker, held
    try:
        assert await asyncio.wait_for(reply(), 60) == "next"
        assert not busy.done(), "the worker was still held while the call went out"
    finally:
        release.set()
        await busy


READ = {"name": "read", "arguments": {"path": "data.txt"}, "id": "call_r"}


def stored(project: Path) -> list[tuple[str, str]]:
    """The stored session's entries as another process would read them: (type, text or call)."""
    session = Session.open(project, readonly=True)
    try:
        entries = messages_of(session.store.path())
    finally:
        session.close()
    return [(m.role, m.text or ",".join(c.name for c in m.tool_calls)) for m in entries]


async def test_a_run_that_owns_its_loop_stores_the_call_and_its_result_before_the_next_request(
    project: Path, server: OpenAIServer
) -> None:
    """A `-p` run writes its entries in place, without the session's git worker thread, and
    each is on disk before the step that depends on it: when the request carrying the read's
    result arrives, the reply asking for the read and the result are both stored, in order."""
    (project / "data.txt").write_text("forty-two\n")
    on_disk: list[tuple[str, str]] = []

    def next_request(_: dict[str, Any]) -> Reply:
        on_disk.extend(stored(project))
        return Reply(text="It says 42.")

    server.add(Reply(tool_calls=[READ]), next_request)
    own_loop.claim()
    workbench = await Workbench.open(
        WorkbenchOptions(
            cwd=project, model="openai/m", api_base=server.url, api_key="k", skills=SkillGraph([])
        )
    )
    try:
        assert await run(workbench, "what is in data.txt?") == "completed"
        worker = f"workbench-git-{workbench.current.store.session_id}"
        assert not [t.name for t in threading.enumerate() if t.name.startswith(worker)]
    finally:
        await workbench.close()
    assert on_disk == [
        ("user", "what is in data.txt?"),
        ("assistant", "read"),
        ("tool_result", "forty-two"),
    ]


def test_a_run_killed_once_the_next_request_left_keeps_the_call_and_its_result(
    project: Path, server: OpenAIServer
) -> None:
    """Killed the moment the request carrying the read's result reaches the model, the run has
    lost nothing: the session holds the reply asking for the read and the read's result."""
    (project / "data.txt").write_text("forty-two\n")
    running: list[subprocess.Popen[bytes]] = []

    def kill(_: dict[str, Any]) -> Reply:
        running[0].kill()
        return Reply(text="never read")

    server.add(Reply(tool_calls=[READ]), kill)
    model = ("--model", "openai/m", "--api-base", server.url, "--api-key", "k")
    running.append(
        subprocess.Popen(
            workbench_command("-p", *model, "what is in data.txt?"),
            cwd=project,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    )
    assert running[0].wait(timeout=120) == -signal.SIGKILL
    assert stored(project) == [
        ("user", "what is in data.txt?"),
        ("assistant", "read"),
        ("tool_result", "forty-two"),
    ]
