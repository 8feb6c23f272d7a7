"""A reader that goes away early (`workbench ... | head -3`): workbench stops writing and exits
quietly with 141 (128 + SIGPIPE), as command-line tools do; in JSON and RPC modes the run is
aborted and recorded like any abort, so nothing is lost from the session."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from support.processes import wait_group_gone
from support.skill_trees import write_tree
from support.workbench_process import run_workbench, workbench_command, write_script

EXIT_BROKEN_PIPE = 141
ABORTED = "bash (error): Aborted by the user while running."


def start(*args: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        workbench_command(*args),
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def close_reader(process: subprocess.Popen[str], after: str | None = None) -> tuple[int, str]:
    """Read stdout up to the first line containing `after` (nothing when None), close it, and
    return the exit code and everything the process wrote on stderr."""
    assert process.stdout is not None and process.stderr is not None
    if after is not None:
        for line in process.stdout:
            if after in line:
                break
    process.stdout.close()
    try:
        code = process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return code, process.stderr.read()


def long_command(project: Path) -> str:
    """A scripted model whose one tool call prints, pauses, prints again, then sleeps long."""
    command = "echo $$ > pgid; echo one; sleep 0.5; echo two; sleep 60"
    call = {"name": "bash", "arguments": {"command": command}, "id": "c1"}
    return write_script(project, [{"tool_calls": [call]}, {"text": "never reached"}])


def last_entry(project: Path) -> tuple[str, str]:
    tree = run_workbench("tree", "--format", "json", cwd=project)
    entry = json.loads(tree.stdout)["entries"][-1]
    return entry["type"], entry["text"]


def test_a_subcommand_whose_reader_left_exits_quietly(project):
    write_tree(project / ".pi" / "skills")
    code, stderr = close_reader(start("graph", cwd=project))
    assert (code, stderr) == (EXIT_BROKEN_PIPE, "")


def test_print_mode_whose_reader_left_exits_quietly(project):
    model = write_script(project, [{"text": "an answer nobody reads"}])
    code, stderr = close_reader(start("-p", "--model", model, "hi", cwd=project))
    assert (code, stderr) == (EXIT_BROKEN_PIPE, "")
    assert last_entry(project) == ("assistant", "an answer nobody reads"), "the run was recorded"


def test_json_mode_aborts_the_run_when_its_reader_leaves(project):
    process = start("--mode", "json", "--model", long_command(project), "go", cwd=project)
    code, stderr = close_reader(process, after='"tool_execution_start"')
    assert (code, stderr) == (EXIT_BROKEN_PIPE, "")
    assert wait_group_gone(int((project / "pgid").read_text())) == [], "the command was killed"
    assert last_entry(project) == ("tool_result", ABORTED)


def test_rpc_mode_aborts_and_ends_when_its_reader_leaves(project):
    process = start("--mode", "rpc", "--model", long_command(project), cwd=project)
    assert process.stdin is not None
    process.stdin.write(json.dumps({"type": "prompt", "text": "go"}) + "\n")
    process.stdin.flush()  # stdin stays open: the closed stdout alone must end the process
    code, stderr = close_reader(process, after='"tool_execution_start"')
    assert (code, stderr) == (EXIT_BROKEN_PIPE, "")
    assert wait_group_gone(int((project / "pgid").read_text())) == [], "the command was killed"
    assert last_entry(project) == ("tool_result", ABORTED)
