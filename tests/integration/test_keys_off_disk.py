"""An API key given on the command line is never written down: not in the session's lock file,
not in the error another process gets, and the holder named is the command the user ran."""

from __future__ import annotations

import stat

from support.openai_server import Reply
from support.workbench_process import run_workbench

from workbench.sessions.store.location import find_storage

SECRET = "sk-proj-very-secret-0123456789"


def test_the_key_stays_off_the_lock_file_and_out_of_errors(project, server, rpc_process, warm):
    """The holder runs in a warm child (`warm`)."""
    model = ("--model", "openai/m", "--api-base", server.url)
    holder = rpc_process(*model, "--api-key", SECRET, cwd=project)
    server.add(Reply(text="hello"))
    holder.send(type="prompt", text="hi")
    holder.wait_type("agent_end")
    session_id = holder.header["id"]
    storage = find_storage(project)
    assert storage is not None
    lock = storage.lock_dir / f"{session_id}.lock"
    assert stat.S_IMODE(lock.stat().st_mode) == 0o600
    recorded = lock.read_text()
    assert SECRET not in recorded and "--api-key ***" in recorded
    assert "forkserver" not in recorded and "workbench --mode rpc" in recorded

    second = run_workbench(
        "-p", "--session", session_id, *model, f"--api-key={SECRET}", "hi", cwd=project
    )
    assert second.returncode == 1
    assert f"session {session_id} is open in another process: pid " in second.stderr
    assert "(workbench --mode rpc --model openai/m" in second.stderr
    assert SECRET not in second.stderr + second.stdout
