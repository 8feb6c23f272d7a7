"""A project's own Python files never run as ours: not in the process the user started, not in
the warm interpreter that serves every project, not in sub-agent children."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from support.openai_server import Reply
from support.workbench_process import run_workbench

from workbench.processes import forkserver
from workbench.processes.forkserver import WARM_UP

SHADOWS = ("yaml", "litellm", "textual", "git")


def plant_modules(project: Path) -> None:
    """Modules named like ours that leave a mark when they run."""
    for name in SHADOWS:
        (project / f"{name}.py").write_text(
            f"from pathlib import Path\nPath({str(project / ('ran-' + name))!r}).write_text('x')\n"
        )


def marks(project: Path) -> list[str]:
    return sorted(p.name for p in project.glob("ran-*"))


def test_python_m_workbench_and_the_warm_server_import_only_our_modules(project, server, warm):
    plant_modules(project)
    server.add(Reply(text="fine"))
    model = ["--model", "openai/m", "--api-base", server.url, "--api-key", "k"]
    done = run_workbench("-p", "--no-session", *model, "hi", cwd=project, timeout=90)
    assert (done.returncode, done.stdout) == (0, "fine\n"), done.stderr
    log = warm.with_suffix(".log")
    serving = forkserver.wait_serving(WARM_UP, os.environ, timeout_s=90)  # not waited for
    assert serving, log.read_text() if log.exists() else "no log"
    assert marks(project) == []


async def test_a_sub_agent_child_in_the_project_imports_only_our_modules(project: Path) -> None:
    from support.subagent_calls import call, user_agents, write_agent

    plant_modules(project)
    write_agent(user_agents(), "helper", model="demo")
    done = await call(project, {"agent": "helper", "task": "say hi"})
    assert done.reports[0]["status"] == "completed", done.result.text
    assert marks(project) == []


def test_a_warm_server_with_foreign_modules_loaded_refuses_to_serve(tmp_path: Path) -> None:
    (tmp_path / "planted.py").write_text("VALUE = 1\n")
    socket = tmp_path / "warm.sock"
    code = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        import planted
        from pathlib import Path
        from workbench.processes import warm_server
        warm_server.serve(Path({str(socket)!r}), "gc:collect", idle_seconds=5)
        """
    )
    done = subprocess.run(
        [sys.executable, "-P", "-c", code], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0 and not socket.exists()
    assert "warm server: not serving, foreign modules: ['planted (" in done.stderr
