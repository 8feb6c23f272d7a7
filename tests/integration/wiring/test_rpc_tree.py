"""The conversation tree driven over `workbench --mode rpc` by a script, as real processes."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from support.git_project import fsck_problems, git, snapshot
from support.openai_server import OpenAIServer, Reply
from support.opened_workbench import read, script, write
from support.workbench_process import RpcProcess, run_workbench

from workbench.sessions.session import Session
from workbench.sessions.store.catalog import list_sessions

DRAFT = (
    '{"subject": "Add the release note", "purpose": "The user asked for a note.", '
    '"changes": ["add NOTE.md"], "result": "NOTE.md exists"}'
)


def answer(process: RpcProcess, command_id: int) -> dict:
    return process.wait_type("response", id=command_id)


def test_a_script_forks_works_commits_merges_and_reads_the_tree(
    project: Path, tmp_path: Path, rpc_process
) -> None:
    model = script(tmp_path, [write("NOTE.md", "note\n"), {"text": "written"}], [DRAFT, "merged"])
    rpc = rpc_process("--model", model, cwd=project)
    session_id = rpc.header["id"]

    rpc.send(type="fork", name="exp", id=1)
    fork = answer(rpc, 1)
    assert fork["success"] and fork["data"]["branch"] == "exp" and fork["data"]["parent"] == "main"
    worktree = Path(fork["data"]["worktree"])
    update = next(e for e in rpc.events if e["type"] == "tree_update")  # before the response
    assert (update["reason"], update["branch"]) == ("fork", "exp")

    rpc.send(type="prompt", text="write a release note", id=2)
    rpc.wait_type("agent_end", stop_reason="completed")
    assert (worktree / "NOTE.md").read_text() == "note\n"
    assert not (project / "NOTE.md").exists()  # the user's checkout gets it with the merge
    rpc.send(type="status", id=3)
    status = answer(rpc, 3)["data"]
    assert status["files"] == [{"path": "NOTE.md", "change": "added", "uncommitted": True}]
    assert status["worktree"] == str(worktree)

    rpc.send(type="commit", id=4)
    commit = answer(rpc, 4)["data"]
    assert commit["message"].startswith("Add the release note\n\nPurpose: The user asked")
    assert commit["checkpoint"]["type"] == "checkpoint" and commit["files"] == ["NOTE.md"]
    assert git(worktree, "log", "-1", "--format=%H") == commit["commit"]

    rpc.send(type="label", label="sealed", id=5)
    assert answer(rpc, 5)["data"]["target"] == commit["checkpoint"]["id"]
    rpc.send(type="merge", branch="exp", id=6)
    merge = answer(rpc, 6)["data"]
    assert merge["into"] == "main" and merge["files"] == ["NOTE.md"]
    assert merge["entry"]["type"] == "merge"
    assert (project / "NOTE.md").read_text() == "note\n"

    rpc.send(type="tree", id=7)
    tree = answer(rpc, 7)["data"]
    assert tree["session"] == session_id
    assert tree["current"] == {"branch": "main", "entry": merge["entry"]["id"]}
    assert [(b["name"], b["parent_branch"]) for b in tree["branches"]] == [
        ("main", None),
        ("exp", "main"),
    ]
    labelled = [e for e in tree["entries"] if e["labels"]]
    assert [(e["type"], e["labels"]) for e in labelled] == [("checkpoint", ["sealed"])]

    rpc.send(type="navigate", target=commit["checkpoint"]["id"][:8], id=8)
    navigated = answer(rpc, 8)["data"]
    assert navigated["branch"] == "exp" and navigated["entry"]["type"] == "checkpoint"
    rpc.send(type="sessions", id=9)
    assert [s["id"] for s in answer(rpc, 9)["data"]] == [session_id]
    assert rpc.close() == 0


def test_failures_are_answered_and_the_process_goes_on(
    project: Path, tmp_path: Path, rpc_process
) -> None:
    rpc = rpc_process("--model", script(tmp_path, [{"text": "ok"}]), cwd=project)
    rpc.send(type="fork", name="exp", id=1)
    worktree = Path(answer(rpc, 1)["data"]["worktree"])
    (worktree / "README.md").write_text("the fork's readme\n")
    rpc.send(type="commit", message="fork edits the readme", id=2)
    assert answer(rpc, 2)["success"]
    rpc.send(type="switch_branch", branch="main", id=3)
    assert answer(rpc, 3)["data"] == {"branch": "main"}
    (project / "README.md").write_text("main's readme\n")
    rpc.send(type="commit", message="main edits the readme", id=4)
    assert answer(rpc, 4)["success"]
    before = snapshot(project)

    rpc.send(type="merge", branch="exp", id=5)
    conflict = answer(rpc, 5)
    assert conflict["success"] is False and conflict["files"] == ["README.md"]
    assert "would conflict" in conflict["error"] and "resolve it in the branch" in conflict["hint"]
    assert snapshot(project) == before
    rpc.send(type="navigate", id=6)  # no target: not understood
    assert "needs 'target'" in rpc.wait_type("error")["message"]
    rpc.send(type="fork", name="exp", id=7)
    assert answer(rpc, 7)["error"] == "branch 'exp' already exists"

    rpc.send(type="prompt", text="still there?", id=8)
    assert rpc.wait_type("agent_end")["stop_reason"] == "completed"
    assert rpc.close() == 0


def test_a_script_reads_the_diff_of_a_branch_and_of_one_file(
    project: Path, tmp_path: Path, rpc_process
) -> None:
    rpc = rpc_process("--model", script(tmp_path, [{"text": "ok"}]), cwd=project)
    rpc.send(type="fork", name="exp", id=1)
    worktree = Path(answer(rpc, 1)["data"]["worktree"])
    (worktree / "README.md").write_text("hello from exp\n")
    (worktree / "NOTE.md").write_text("a note\n")

    rpc.send(type="diff", id=2)
    whole = answer(rpc, 2)["data"]["diff"]
    assert "diff --git a/NOTE.md b/NOTE.md\nnew file mode 100644" in whole
    assert "-hello\n+hello from exp" in whole
    rpc.send(type="diff", branch="exp", path="NOTE.md", id=3)
    one = answer(rpc, 3)["data"]["diff"]
    assert one.startswith("diff --git a/NOTE.md b/NOTE.md") and "README.md" not in one
    rpc.send(type="diff", branch="main", id=4)
    assert answer(rpc, 4)["data"] == {"diff": ""}  # the user's checkout is untouched
    rpc.send(type="diff", branch="nope", id=5)
    failed = answer(rpc, 5)
    assert failed["success"] is False and failed["error"].startswith("no branch 'nope'")
    rpc.send(type="diff", path=3, id=6)
    assert "needs 'path' as str" in rpc.wait_type("error")["message"]
    assert rpc.close() == 0


def test_diff_in_a_project_without_git_says_it_needs_git(tmp_path: Path, rpc_process) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    rpc = rpc_process("--model", script(tmp_path, [{"text": "ok"}]), cwd=plain)
    rpc.send(type="diff", id=1)
    failed = answer(rpc, 1)
    assert failed["success"] is False
    assert failed["error"].startswith("diff works on files in git")
    assert "git init" in failed["hint"]
    assert rpc.close() == 0


def test_runs_continue_a_session_by_latest_id_and_branch(
    project: Path, tmp_path: Path, rpc_process
) -> None:
    model = script(tmp_path, [{"text": "one"}])
    assert run_workbench("-p", "--model", model, "first", cwd=project).stdout == "one\n"
    again = run_workbench("-p", "--continue", "--model", model, "second", cwd=project)
    assert again.returncode == 0, again.stderr
    [session_id] = [info.id for info in list_sessions(project)]
    with Session.open(project, session_id, readonly=True) as session:
        users = [e.payload["text"] for e in session.store.path() if e.type == "user"]
    assert users == ["first", "second"]
    assert run_workbench("fork", "exp", cwd=project).returncode == 0

    latest = rpc_process("--continue", "--model", model, cwd=project)
    assert (latest.header["id"], latest.header["branch"]) == (session_id, "exp")
    assert latest.header["cwd"].endswith(f"/worktrees/{session_id}/exp")
    latest.close()
    on_main = rpc_process("--session", session_id[:6], "--branch", "main", cwd=project)
    assert (on_main.header["id"], on_main.header["branch"]) == (session_id, "main")
    assert on_main.header["cwd"] == str(project)
    on_main.close()
    by_branch = rpc_process("--branch", "exp", "--model", model, cwd=project)
    assert (by_branch.header["id"], by_branch.header["branch"]) == (session_id, "exp")
    by_branch.close()

    missing = run_workbench("-p", "--session", "ffff", "--model", model, "x", cwd=project)
    assert missing.returncode == 2 and "no session 'ffff'" in missing.stderr
    bad_branch = run_workbench("-p", "--branch", "nope", "--model", model, "x", cwd=project)
    assert bad_branch.returncode == 2 and "no branch 'nope'" in bad_branch.stderr


def test_a_second_process_on_the_session_is_told_which_process_has_it(
    project: Path, tmp_path: Path, rpc_process
) -> None:
    model = script(tmp_path, [{"text": "one"}, {"text": "two"}])
    first = rpc_process("--model", model, cwd=project)
    first.send(type="prompt", text="hello", id=1)
    first.wait_type("agent_end")

    second = run_workbench("-p", "--continue", "--model", model, "me too", cwd=project)
    assert second.returncode == 1
    assert f"session {first.header['id']} is open in another process: pid " in second.stderr
    assert f"pid {first.process.pid} " in second.stderr
    assert "close it there first" in second.stderr and "Traceback" not in second.stderr

    assert first.close() == 0
    third = run_workbench("-p", "--continue", "--model", model, "now me", cwd=project)
    assert third.returncode == 0, third.stderr
    assert third.stderr == ""  # closed cleanly: no lock to take over


def test_sigkill_during_a_streamed_turn_loses_no_finished_entry(
    project: Path, server: OpenAIServer, rpc_process
) -> None:
    (project / "README.md").write_text("uncommitted work of the user\n")
    before = snapshot(project)
    server.add(Reply(text="done"), Reply(text="a long streamed answer " * 200, delay_s=0.02))
    rpc = rpc_process(
        "--model", "openai/test", "--api-base", server.url, "--api-key", "none", cwd=project
    )
    rpc.send(type="prompt", text="first question", id=1)
    rpc.wait_type("agent_end")
    rpc.send(type="prompt", text="second question", id=2)
    for _ in range(5):
        rpc.wait_for(lambda e: e["type"] == "message_update")
    os.kill(rpc.process.pid, signal.SIGKILL)
    rpc.process.wait(timeout=10)

    finished = [e["message"]["id"] for e in rpc.events if e["type"] == "message_end"]
    with Session.open(project, rpc.header["id"]) as session:
        stored = [e.payload["id"] for e in session.store.path()]
        notices = session.notices
    assert stored == finished  # both user messages, the first reply; not the cut-off one
    assert len(stored) == 3
    assert any(f"from pid {rpc.process.pid} " in n and "stopped without" in n for n in notices)
    assert fsck_problems(project) == []
    assert snapshot(project) == before


def test_after_a_merge_the_model_is_told_what_came_back(
    project: Path, server: OpenAIServer, rpc_process
) -> None:
    server.add(
        Reply(tool_calls=[{"name": "write", "arguments": {"path": "NOTE.md", "content": "n\n"}}]),
        Reply(text="wrote NOTE.md"),
        Reply(text=DRAFT),
        Reply(text="## Goal\nA release note\n\n## Progress\n- [x] NOTE.md"),
        Reply(text="I see the merge"),
    )
    rpc = rpc_process(
        "--model", "openai/test", "--api-base", server.url, "--api-key", "none", cwd=project
    )
    rpc.send(type="fork", name="exp", id=1)
    rpc.send(type="prompt", text="write a note", id=2)
    rpc.wait_type("agent_end")
    rpc.send(type="commit", id=3)
    commit = answer(rpc, 3)["data"]
    rpc.send(type="merge", branch="exp", id=4)
    assert answer(rpc, 4)["success"]
    rpc.send(type="prompt", text="what came back?", id=5)
    rpc.wait_type("agent_end")
    rpc.close()

    draft_request = server.requests[2]["messages"][-1]["content"]
    assert "## Files to commit\nadded: NOTE.md" in draft_request
    assert "USER: write a note" in draft_request
    assert commit["message"].startswith("Add the release note\n\nPurpose:")
    told = [m["content"] for m in server.requests[4]["messages"] if m["role"] == "user"]
    assert told[-1] == "what came back?"
    merge_note = told[-2]
    assert merge_note.startswith("This conversation returned from another branch")
    assert "Branch exp was merged into main." in merge_note
    assert f"- {commit['commit'][:10]} Add the release note" in merge_note
    assert "- [x] NOTE.md" in merge_note


def test_skills_status_shows_the_loading_state_of_a_stored_session(
    project: Path, tmp_path: Path
) -> None:
    model = script(tmp_path, [read(".pi/skills/publish-report/SKILL.md"), {"text": "read"}])
    assert run_workbench("-p", "--model", model, "publish a report", cwd=project).returncode == 0
    [session_id] = [info.id for info in list_sessions(project)]
    other = script(tmp_path, [{"text": "nothing read"}])
    assert run_workbench("-p", "--model", other, "another session", cwd=project).returncode == 0

    shown = run_workbench("skills", "status", "--session", session_id[:6], cwd=project)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == f"session {session_id}, branch main"
    assert lines[1] == "Skill graph status (enforcer mode: warn)"
    assert "Active compound: publish-report" in lines
    assert "  compound: publish-report" in lines
    latest = run_workbench("skills", "status", cwd=project)
    assert "Active compound: none" in latest.stdout.splitlines()
    missing = run_workbench("skills", "status", "--session", "ffff", cwd=project)
    assert missing.returncode == 2 and "no session 'ffff'" in missing.stderr
