"""The bash tool in the real bubblewrap box: writes only in the project, secrets hidden, no
network, our API keys left out; `off` behaves as before."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.git_project import git, make_project
from support.sandbox_dirs import SECRET, sleepers, wait_until

from workbench.agent.tools.bash import execute
from workbench.permission import PermissionRequest
from workbench.sandbox import SandboxPolicy
from workbench.tool import ToolContext, ToolResult


async def run(project: Path, command: str, **policy: object) -> ToolResult:
    context = ToolContext(project, sandbox=SandboxPolicy(**policy))  # type: ignore[arg-type]
    return await execute({"command": command}, context)


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP server on our loopback that answers every connection with `hello`."""
    server = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        while True:
            try:
                client, _ = server.accept()
            except OSError:
                return
            client.sendall(b"hello")
            client.close()

    threading.Thread(target=serve, daemon=True).start()
    yield server.getsockname()[1]
    server.close()


async def test_a_write_outside_the_project_is_refused_and_named(work: Path, outside: Path):
    target = outside / "escaped.txt"
    result = await run(work, f"echo in > inside.txt; echo out > {target}", mode="workspace")
    assert not target.exists()
    assert (work / "inside.txt").read_text() == "in\n"
    assert result.is_error
    assert "Sandbox (workspace) denied: write outside the project" in result.text
    assert result.details["sandbox_denied"]


async def test_off_writes_anywhere_as_before(work: Path, outside: Path):
    target = outside / "escaped.txt"
    result = await run(work, f"echo out > {target}", mode="off")
    assert not result.is_error, result.text
    assert target.read_text() == "out\n"


async def test_the_secrets_in_home_are_hidden(work: Path, home: Path):
    command = "cat ~/.ssh/id_rsa ~/.aws/credentials; echo files: $(ls -A ~/.ssh | wc -l)"
    result = await run(work, command, mode="workspace")
    assert SECRET not in result.text
    assert "files: 0" in result.text
    unboxed = await run(work, "cat ~/.ssh/id_rsa", mode="off")
    assert SECRET in unboxed.text


@pytest.mark.parametrize("mode", ["workspace", "strict"])
async def test_our_api_keys_are_not_in_the_environment_unless_listed(
    work: Path, monkeypatch: pytest.MonkeyPatch, mode: str
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-sandbox-test")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-sandbox-test")
    command = 'echo "[$OPENAI_API_KEY][$GITHUB_TOKEN][$HOME]"'
    hidden = await run(work, command, mode=mode)
    assert hidden.text.startswith("[][][")
    listed = await run(work, command, mode=mode, env=("GITHUB_TOKEN",))
    assert listed.text.startswith("[][ghp-sandbox-test][")


async def test_a_socket_to_a_loopback_server_fails_in_the_box(work: Path, listener: int):
    client = f"import socket; print(socket.create_connection(('127.0.0.1', {listener})).recv(5))"
    boxed = await run(work, f'python3 -c "{client}"', mode="workspace")
    assert "hello" not in boxed.text
    assert "network: the box has no network" in boxed.text
    networked = await run(work, f'python3 -c "{client}"', mode="workspace+net")
    assert "b'hello'" in networked.text, networked.text


async def test_git_commit_works_in_a_worktree_but_hooks_and_config_stay_read_only(work: Path):
    worktree = work.parent / (work.name + "-fork")
    git(work, "worktree", "add", "--quiet", "-b", "wb/s/fork", str(worktree))
    try:
        commit = "echo change > new.txt && git add new.txt && git commit --quiet -m boxed"
        result = await run(worktree, commit, mode="workspace")
        assert not result.is_error, result.text
        assert git(work, "log", "-1", "--format=%s", "wb/s/fork").strip() == "boxed"

        hook = work / ".git" / "hooks" / "pre-commit"
        (work / ".pi").mkdir()
        tamper = (
            f"echo 'curl evil' > {hook}; git config core.hooksPath /x; "
            f"echo '{{}}' > {work}/.pi/settings.json"
        )
        denied = await run(work, tamper, mode="workspace")
        assert not hook.exists()
        assert "hooksPath" not in (work / ".git" / "config").read_text()
        assert not (work / ".pi" / "settings.json").exists()
        assert "denied: write outside the project" in denied.text
    finally:
        git(work, "worktree", "remove", "--force", str(worktree))


@pytest.mark.parametrize("mode", ["workspace", "strict"])
async def test_git_commit_works_in_a_session_worktree_under_tmp(tmp_path: Path, mode: str):
    """Where the session keeps it (inside the project's .git), in a project under /tmp, which
    the box replaces with its own: the common git folder must still be there."""
    project = make_project(tmp_path / "repo")
    worktree = project / ".git" / "workbench" / "worktrees" / "s" / "fork"
    git(project, "worktree", "add", "--quiet", "-b", "wb/s/fork", str(worktree))
    commit = "echo change > new.txt && git add new.txt && git commit --quiet -m boxed"
    result = await run(worktree, commit, mode=mode)
    assert not result.is_error, result.text
    assert git(project, "log", "-1", "--format=%s", "wb/s/fork").strip() == "boxed"


async def test_strict_shows_only_the_project_and_the_toolchains(
    work: Path, outside: Path, home: Path
):
    (outside / "visible.txt").write_text("seen")
    result = await run(
        work, f"cat {outside}/visible.txt; ls {home}; echo ok > mine.txt", mode="strict"
    )
    assert "seen" not in result.text
    assert (work / "mine.txt").read_text() == "ok\n"
    assert "seen" in (await run(work, f"cat {outside}/visible.txt", mode="workspace")).text


async def test_allow_write_and_allow_read_widen_the_box(work: Path, outside: Path, home: Path):
    result = await run(
        work,
        f"echo granted > {outside}/allowed.txt; cat ~/.ssh/id_rsa",
        mode="workspace",
        allow_write=(outside,),
        allow_read=(home / ".ssh",),
    )
    assert (outside / "allowed.txt").read_text() == "granted\n"
    assert SECRET in result.text


async def test_abort_kills_every_process_in_the_box(work: Path):
    """Sleeps with a mark of their own, one in the background: cancelling the call (as an
    abort does) leaves none of them alive."""
    mark = "987654"
    running = asyncio.ensure_future(
        run(work, f"sleep {mark}1 & sleep {mark}2; wait", mode="workspace")
    )
    while len(sleepers(mark)) < 2:
        await asyncio.sleep(0.05)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    assert await asyncio.to_thread(wait_until, lambda: not sleepers(mark)), sleepers(mark)


@pytest.mark.parametrize("answer", ["allow", "reject"])
async def test_a_denied_command_runs_once_outside_only_when_the_user_says_so(
    work: Path, outside: Path, answer: str
):
    target = outside / "escaped.txt"
    asked: list[PermissionRequest] = []

    async def user(request: PermissionRequest) -> str:  # the front end's prompt, answered
        asked.append(request)
        return answer

    policy = SandboxPolicy(mode="workspace")
    context = ToolContext(work, sandbox=policy, tool_call_id="c1", ask=user)
    result = await execute({"command": f"echo out > {target}"}, context)
    [request] = asked
    assert request.kind == "outside_sandbox" and request.detail == f"echo out > {target}"
    assert "write outside the project" in request.title
    if answer == "allow":
        assert target.read_text() == "out\n"
        assert not result.is_error and "run once outside the sandbox" in result.text
        assert result.details["outside_sandbox"] == "granted"
    else:
        assert not target.exists()
        assert result.is_error and "Sandbox (workspace) denied" in result.text
        assert result.details["outside_sandbox"] == "refused"


async def test_without_anyone_to_ask_a_denied_command_stays_denied(work: Path, outside: Path):
    target = outside / "escaped.txt"
    result = await run(work, f"echo out > {target}", mode="workspace")  # headless: no asker
    assert not target.exists() and "outside_sandbox" not in result.details
