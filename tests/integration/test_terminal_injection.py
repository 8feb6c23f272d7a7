"""Text others wrote (a pulled session's name, entries, labels, files; a model's reply) printed
to a terminal shows its control characters instead of handing them to the terminal: `ESC ]52`
would write the user's clipboard, `ESC ]0` the title, `ESC [2J` clear the screen. What goes to a
pipe stays as it was. Each command runs as a real process on a pseudo-terminal."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

import pytest
from support.acp_client import TIMEOUT, acp_workbench
from support.hostile_remote import HostileRemote
from support.terminal import ESCAPES, run_in_terminal
from support.workbench_process import run_workbench

SESSION = "e5ca9e000001"
CLIPBOARD = "\x1b]52;c;cHduZWQ=\x07"
TITLE = "\x1b]0;owned\x07"
CLEAR = "\x1b[2J\x9b2J"
EVIL = f"{CLIPBOARD}{TITLE}{CLEAR}"
SHOWN = "␛]52;c;cHduZWQ=␇␛]0;owned␇␛[2J␛[2J"


@pytest.fixture
def bob(tmp_path: Path) -> Path:
    """A clone that pulled a session whose name, entries, label and files carry escapes."""
    remote = HostileRemote(tmp_path / "remote.git")
    base = remote.project({"README.md": "hello\n"})
    main = remote.conversation(SESSION, "main", [("user", f"hi {EVIL}"), ("assistant", "ok")])
    remote.entry(SESSION, "main", "label", {"label": f"v1{EVIL}", "target": main}, main)
    trying = remote.conversation(SESSION, "exp", [("assistant", f"trying {EVIL}")], parent=main)
    load = {"skill": f"s{EVIL}", "layer": "atom", "verdict": "ok", "how": "read", "time": 1.0}
    result = {"role": "tool_result", "text": "x", "tool_name": "read", "tool_call_id": "c1",
              "details": {"skill_load": load}}  # fmt: skip
    remote.entry(SESSION, "exp", "tool_result", result, trying)
    remote.files(SESSION, "exp", {"README.md": f"hello\n{EVIL}\n"}, base=base)
    remote.describe(SESSION, {
        "session_id": SESSION, "name": f"team {EVIL}", "created": 1,
        "branches": {"main": {"parent": None},
                     "exp": {"parent": "main", "fork_entry": main, "files_base": base}},
    })  # fmt: skip
    clone = remote.clone(tmp_path / "bob")
    pulled = run_workbench("pull", str(remote.path), cwd=clone, timeout=60)
    assert pulled.returncode == 0, pulled.stderr
    return clone


def on_terminal(clone: Path, *args: str) -> str:
    code, output = run_in_terminal([sys.executable, "-m", "workbench", *args], clone)
    assert code == 0, output
    assert not [e for e in ESCAPES if e in output], f"escapes reached the terminal: {output!r}"
    return output


def test_sessions_shows_a_pulled_name_with_its_escapes_visible(bob: Path) -> None:
    assert f"team {SHOWN}" in on_terminal(bob, "sessions")


def test_tree_shows_a_pulled_label_and_name_with_escapes_visible(bob: Path) -> None:
    output = on_terminal(bob, "tree", "--session", SESSION)
    assert f"v1{SHOWN}" in output


def test_status_shows_a_pulled_skill_load_with_escapes_visible(bob: Path) -> None:
    output = on_terminal(bob, "status", "exp", "--session", SESSION)
    assert f"skills loaded: s{SHOWN}" in output


def test_label_echoes_a_label_with_escapes_visible(bob: Path) -> None:
    output = on_terminal(bob, "label", f"mine{EVIL}", "--session", SESSION)
    assert "labelled " in output


def test_a_reply_printed_to_a_terminal_is_shown_and_to_a_pipe_kept(bob: Path) -> None:
    script = bob.parent / "reply.json"
    script.write_text(json.dumps([{"text": f"done {EVIL}"}]))
    args = ("-p", "--no-session", "--model", f"scripted:{script}", "go")

    assert f"done {SHOWN}" in on_terminal(bob, *args)
    piped = run_workbench(*args, cwd=bob)
    assert piped.stdout == f"done {EVIL}\n", "a script reading the pipe gets the model's text"


async def test_the_acp_plan_shows_a_pulled_skill_name_with_escapes_visible(bob: Path) -> None:
    script = bob.parent / "unused.json"
    script.write_text(json.dumps([{"text": "unused"}]))
    async with acp_workbench(bob, "--model", f"scripted:{script}") as (conn, client, _):
        on_exp = f"{SESSION}@exp"
        await conn.load_session(cwd=str(bob), session_id=on_exp, mcp_servers=[])
        deadline = time.monotonic() + TIMEOUT
        while not client.of(on_exp, "plan") and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        plans = [[e.content for e in u.entries] for u in client.of(on_exp, "plan")]

    assert plans == [[f"atom s{SHOWN}"]]
