"""`workbench mcp list`: every server a session here would start, its state, tools and error;
the project's `.mcp.json` waits for trust like a session's. And a headless run whose `--tools`
names the tool of a server that did not start: a warning, not a usage error."""

from __future__ import annotations

import json
from pathlib import Path

from support.mcp_config import allow_start, stdio_entry, user_file, write_servers
from support.workbench_process import run_workbench


def test_mcp_list_starts_each_server_and_reports_it(project: Path, tmp_path: Path) -> None:
    allow_start()
    write_servers(user_file(), {"mine": stdio_entry(tmp_path / "mine.started")})
    write_servers(project / ".mcp.json", {"theirs": stdio_entry(tmp_path / "theirs.started")})

    shown = run_workbench("mcp", "list", cwd=project, timeout=180)

    assert shown.returncode == 0, shown.stderr
    assert "mine (user, stdio): ready" in shown.stdout
    assert "tools: mcp__mine__echo, mcp__mine__huge" in shown.stdout
    assert "theirs (project): not started, the project is not trusted" in shown.stdout
    assert f"workbench trust {project}" in shown.stdout
    assert not (tmp_path / "theirs.started").exists()

    trusted = run_workbench("mcp", "list", "--trust", "--format", "json", cwd=project, timeout=180)
    servers = {s["name"]: s["state"] for s in json.loads(trusted.stdout)["servers"]}
    assert servers == {"mine": "ready", "theirs": "ready"}


def test_a_server_that_does_not_start_fails_mcp_list_and_a_run_naming_its_tool_goes_on(
    project: Path,
) -> None:
    allow_start()
    write_servers(user_file(), {"gone": {"command": str(project / "no-such-program")}})

    shown = run_workbench("mcp", "list", cwd=project, timeout=180)

    assert shown.returncode == 1
    assert "gone (user, stdio): failed" in shown.stdout
    assert "last error:" in shown.stdout

    tools = "read,mcp__gone__echo"
    ran = run_workbench(
        "-p", "hi", "--no-session", "--model", "demo", "--tools", tools, cwd=project
    )
    assert ran.returncode == 0, ran.stderr
    assert "--tools names mcp__gone__echo, but MCP server gone is not running" in ran.stderr
    assert "unknown tool" not in ran.stderr
