"""One command registry: the CLI, the app, an editor (ACP) and RPC offer each command with the
same one-line help, an extension's command joins all of them, and a new entry shows on every
surface it names."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from support.workbench_process import run_workbench

from workbench import cli
from workbench.modes import acp_commands, rpc
from workbench.modes.event_lines import EventLines
from workbench.runtime import commands
from workbench.runtime.commands import Args, Argument, CommandSpec
from workbench.tui import slash


def cli_help(text: str) -> dict[str, str]:
    """The subcommand list of `workbench --help`: name -> one-line help."""
    section = text.split("subcommands:\n", 1)[1].split("\n\n", 1)[0]
    return dict(line.strip().split(maxsplit=1) for line in section.splitlines())


def no_values(source: str) -> list[tuple[str, str]]:
    return []


async def test_the_cli_and_an_editor_show_the_same_help_for_the_same_command(
    project: Path, opened
) -> None:
    result = run_workbench("--help", cwd=project)
    assert result.returncode == 0, result.stderr
    subcommands = cli_help(result.stdout)
    session = await opened(project)
    offered = {c.name: c.description for c in acp_commands.advertised(session.wb)}
    both = sorted(set(subcommands) & set(offered))
    assert {"tree", "fork", "status", "commit", "merge", "label", "sessions"} <= set(both)
    for name in both:
        assert subcommands[name] == offered[name] == commands.get("cli", name).help, name
    assert subcommands["fork"] == "start a branch of the conversation here"


async def test_a_fork_names_the_files_it_leaves_behind_the_same_way_everywhere(
    project: Path, opened
) -> None:
    for n in range(1, 8):
        (project / f"draft{n}.txt").write_text("work in progress\n")
    started = run_workbench("-p", "--model", "demo", "hello", cwd=project)
    assert started.returncode == 0, started.stderr
    cli_fork = run_workbench("fork", "from-the-cli", cwd=project)
    assert cli_fork.returncode == 0, cli_fork.stderr
    session = await opened(project, branch="main")
    found = acp_commands.find(session.wb, "/fork from-the-editor")
    assert found is not None
    editor_fork = await acp_commands.answer(session.wb, *found)
    left = (
        "7 uncommitted changes in main stay there, not in the fork: "
        "draft1.txt, draft2.txt, draft3.txt, draft4.txt, draft5.txt and 2 more"
    )
    assert cli_fork.stdout.splitlines()[1:] == editor_fork.splitlines()[1:]
    assert editor_fork.splitlines()[1:] == [
        left,
        "commit them in main first if the fork needs them",
    ]


async def test_an_extension_command_is_offered_in_the_app_an_editor_and_over_rpc(
    project: Path, opened, rpc_process
) -> None:
    extensions = project / ".pi" / "extensions"
    extensions.mkdir()
    (extensions / "hello.py").write_text(
        "def register(api):\n"
        "    api.register_command('hello', lambda args: f'hello {args}', 'say hello')\n"
    )
    session = await opened(project, trust=True)
    app = [(c.name, c.help) for c in commands.offered(session.wb, "app") if c.extension]
    assert app == [("hello", "say hello")]
    completed = slash.completions("/hel", dict(app), no_values)
    assert [(c.text, c.help) for c in completed] == [
        ("/help", "keys and commands"),
        ("/hello ", "say hello (extension)"),
    ]

    editor = {c.name: c for c in acp_commands.advertised(session.wb)}
    assert editor["hello"].description == "say hello"
    found = acp_commands.find(session.wb, "/hello editor")
    assert found is not None
    await acp_commands.answer(session.wb, *found)
    assert [n.text for n in session.of("notice")] == ["hello editor"]

    process = rpc_process("--model", "demo", "--trust", cwd=project)
    process.send(type="hello", args="script", id=1)
    assert process.wait_type("response", id=1)["success"] is True
    assert {"type": "notice", "text": "hello script", "level": "info"} in process.events
    assert process.close() == 0


async def _echo(wb: Any, args: Args) -> str:
    return str(args["text"])


ECHO = CommandSpec(
    "echo",
    "say the text back",
    frozenset({"cli", "app", "acp", "rpc"}),
    (Argument("text", "the text", True),),
    _echo,
    lambda text: f"echo: {text}",
    lambda text: {"echoed": text},
)
ONLY_RPC = CommandSpec("ping", "answer pong", frozenset({"rpc"}), run=lambda wb, args: _pong())


async def _pong() -> str:
    return "pong"


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(commands, "COMMANDS", [*commands.COMMANDS, ECHO, ONLY_RPC])


async def test_a_new_registry_entry_appears_on_every_surface_it_names(
    project: Path, opened, registered, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    subcommands = cli_help(capsys.readouterr().out)
    assert subcommands["echo"] == "say the text back" and "ping" not in subcommands

    completed = slash.completions("/ec", {}, no_values)
    assert [(c.text, c.label, c.help) for c in completed] == [
        ("/echo ", "/echo <text>", "say the text back")
    ]
    assert slash.completions("/pi", {}, no_values) == []

    session = await opened(project)
    editor = {c.name: c for c in acp_commands.advertised(session.wb)}
    assert editor["echo"].description == "say the text back" and "ping" not in editor
    found = acp_commands.find(session.wb, "/echo hi there")
    assert found is not None
    assert await acp_commands.answer(session.wb, *found) == "echo: hi there"

    out = io.StringIO()
    server = rpc.Session(session.wb, EventLines(stream=out))
    await server.handle(json.dumps({"type": "echo", "text": "hi", "id": 7}))
    await server.handle(json.dumps({"type": "ping", "id": 8}))
    await server.handle(json.dumps({"type": "echo", "id": 9}))
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert lines[0] == {
        "type": "response",
        "command": "echo",
        "id": 7,
        "success": True,
        "data": {"echoed": "hi"},
    }
    assert lines[1]["data"] == "pong"
    assert lines[2]["type"] == "error"
    assert lines[2]["message"] == "command 'echo' needs 'text' as str"
