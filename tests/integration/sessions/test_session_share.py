"""Sharing sessions through a real git remote: a bare repository on disk, Alice's and Bob's clones
(different git identities), `workbench push` / `pull` / `sessions` as real processes."""

from __future__ import annotations

import contextlib
import json
import subprocess
from pathlib import Path

import pytest
from support.session_entries import assistant, git, run, store_dir, user
from support.team_remote import Person, make_team, remote_refs, tree_json

from workbench.sessions.session import Session


@pytest.fixture
def team(tmp_path: Path) -> tuple[Path, Person, Person]:
    return make_team(tmp_path)


def start_session(person: Person, with_experiment: bool = True) -> str:
    """A session with two entries on main and, optionally, a committed experiment `exp`."""
    with Session.create(person.clone) as session:
        run(session.store.append("user", user("make the parser faster")))
        run(session.store.append("assistant", assistant("I will try a table-driven parser")))
        if with_experiment:
            run(session.fork("exp"))
            (session.workspace("exp") / "parser.py").write_text("TABLE = {}\n")
            run(session.commit("Table-driven parser", branch="exp"))
            run(session.store.append("user", user("measure it")))
        return session.id


def test_push_sends_only_the_sessions_namespace_and_pull_brings_it_to_a_colleague(
    team: tuple[Path, Person, Person],
) -> None:
    remote, alice, bob = team
    sid = start_session(alice)
    before = remote_refs(remote)

    pushed = alice.cli("push")
    assert pushed.returncode == 0, pushed.stderr
    assert "main: new" in pushed.stdout and "files of exp: new" in pushed.stdout
    refs = remote_refs(remote)
    added = sorted(set(refs) - set(before))
    assert added == [
        f"refs/workbench/{sid}/branches/exp",
        f"refs/workbench/{sid}/branches/main",
        f"refs/workbench/{sid}/files/exp",
        f"refs/workbench/{sid}/shared",
    ]
    assert refs["refs/heads/main"] == before["refs/heads/main"]  # a plain branch is untouched
    shared = git(remote, "log", "-1", "--format=%B", f"refs/workbench/{sid}/shared")
    assert str(alice.clone) not in shared and "worktree" not in shared and "lock" not in shared
    assert git(remote, "show", f"refs/workbench/{sid}/files/exp:parser.py") == "TABLE = {}"

    again = alice.cli("push")
    assert again.returncode == 0 and "main: up to date" in again.stdout

    pulled = bob.cli("pull")
    assert pulled.returncode == 0, pulled.stderr
    assert f"session {sid} from origin" in pulled.stdout and "files of exp: new" in pulled.stdout
    listed = json.loads(bob.cli("sessions", "--format", "json").stdout)
    assert [(s["id"], s["authors"], s["remote"]) for s in listed] == [
        (sid, ["Alice Smith"], "origin")
    ]
    assert "by Alice Smith  from origin" in bob.cli("sessions").stdout
    tree = tree_json(bob, "--session", sid)
    assert [e["text"] for e in tree["entries"]][:2] == [
        "make the parser faster",
        "I will try a table-driven parser",
    ]
    assert {b["name"] for b in tree["branches"]} == {"main", "exp"}

    # Bob can read it before he opens it: the export shows her experiment's committed files.
    md = bob.cli("export", "--session", sid, "--branch", "exp", "--format", "md", "-o", "-")
    assert md.returncode == 0, md.stderr
    assert "+TABLE = {}" in md.stdout and "I will try a table-driven parser" in md.stdout

    # Bob continues Alice's experiment: the worktree is made from her file commits, and the
    # new entries are his.
    bob.say(sid, "now cache the table")
    bob_exp = Session.open(bob.clone, sid, branch="exp")
    try:
        assert (bob_exp.workspace("exp") / "parser.py").read_text() == "TABLE = {}\n"
    finally:
        bob_exp.close()
    main_head = git(store_dir(bob.clone), "rev-parse", f"refs/workbench/{sid}/branches/main")
    assert git(store_dir(bob.clone), "log", "-1", "--format=%an", main_head) == "Bob Jones"

    assert bob.cli("push").returncode == 0
    back = alice.cli("pull")
    assert back.returncode == 0 and "main: updated" in back.stdout, back.stdout + back.stderr
    assert (
        git(store_dir(alice.clone), "rev-parse", f"refs/workbench/{sid}/branches/main") == main_head
    )
    listed = json.loads(alice.cli("sessions", "--format", "json").stdout)
    assert listed[0]["authors"] == ["Alice Smith", "Bob Jones"] and listed[0]["remote"] == ""


def test_diverged_branch_push_is_refused_and_pull_keeps_both_lines(
    team: tuple[Path, Person, Person],
) -> None:
    remote, alice, bob = team
    sid = start_session(alice, with_experiment=False)
    assert alice.cli("push").returncode == 0
    assert bob.cli("pull").returncode == 0
    alice.say(sid, "alice's idea", ["alice's answer"])
    bob.say(sid, "bob's idea", ["bob's answer"])
    assert alice.cli("push").returncode == 0
    remote_main = remote_refs(remote)[f"refs/workbench/{sid}/branches/main"]

    refused = bob.cli("push")
    assert refused.returncode == 1
    assert "origin has moved on" in refused.stderr and "workbench pull origin" in refused.stderr
    assert remote_refs(remote)[f"refs/workbench/{sid}/branches/main"] == remote_main

    pulled = bob.cli("pull")
    assert pulled.returncode == 0, pulled.stderr
    assert "main diverged: their line is now the branch main@alice" in pulled.stdout
    assert "kept both lines" in pulled.stderr
    tree = tree_json(bob, "--session", sid)
    by_text = {e["text"]: e["branch"] for e in tree["entries"]}
    assert by_text["alice's idea"] == "main@alice" and by_text["bob's idea"] == "main"
    assert by_text["make the parser faster"] == "main"
    branches = {b["name"]: b for b in tree["branches"]}
    assert branches["main@alice"]["parent_branch"] == "main"
    assert branches["main@alice"]["head"] == remote_main

    # Her line is a branch like any other: going back on it and writing starts a branch of it.
    with Session.open(bob.clone, sid, branch="main@alice") as session:
        idea = next(e for e in session.store.path() if e.type == "user" and e.branch != "main")
        run(session.navigate(idea.id))
        run(session.store.append("user", user("what if we combine them?")))
        assert session.store.branch == "main@alice-1"

    # Bob joins Alice's line into his and pushes: a fast-forward there, nothing forced.
    merged = bob.cli("merge", "main@alice", "--session", sid)
    assert merged.returncode == 0, merged.stderr
    pushed = bob.cli("push")
    assert pushed.returncode == 0, pushed.stderr
    assert alice.cli("pull").returncode == 0
    texts = [e["text"] for e in tree_json(alice, "--session", sid)["entries"]]
    assert "alice's idea" in texts and "bob's idea" in texts
    main_ref = f"refs/workbench/{sid}/branches/main"
    assert git(remote, "merge-base", "--is-ancestor", remote_main, main_ref) == ""

    # Once joined, Bob's main follows the remote's main again: Alice's next entries arrive there.
    assert bob.cli("pull").returncode == 0
    alice.say(sid, "alice goes on", ["fine"])
    assert alice.cli("push").returncode == 0
    again = bob.cli("pull")
    assert again.returncode == 0 and "main: updated" in again.stdout, again.stdout
    assert "diverged" not in again.stdout
    assert git(store_dir(bob.clone), "rev-parse", main_ref) == git(
        store_dir(alice.clone), "rev-parse", main_ref
    )
    assert "main: up to date" in bob.cli("push").stdout


def test_a_diverged_experiment_keeps_both_lines_with_their_files(
    team: tuple[Path, Person, Person],
) -> None:
    _, alice, bob = team
    sid = start_session(alice)
    assert alice.cli("push").returncode == 0
    assert bob.cli("pull").returncode == 0
    for person, text in ((alice, "alice"), (bob, "bob")):
        with Session.open(person.clone, sid, branch="exp") as session:
            (session.workspace("exp") / "parser.py").write_text(f"TABLE = {text!r}\n")
            run(session.commit(f"{text}'s table", branch="exp"))
    assert alice.cli("push").returncode == 0
    refused = bob.cli("push")
    assert refused.returncode == 1 and "exp has entries there" in refused.stderr

    pulled = bob.cli("pull")
    assert "exp diverged: their line is now the branch exp@alice" in pulled.stdout
    assert "files of exp@alice: new" in pulled.stdout
    with Session.open(bob.clone, sid, branch="exp@alice") as session:
        assert (session.workspace() / "parser.py").read_text() == "TABLE = 'alice'\n"
        assert (session.workspace("exp") / "parser.py").read_text() == "TABLE = 'bob'\n"
        status = run(session.status("exp@alice"))
        assert status.parent_branch == "exp"


def _descendants(pid: int) -> dict[int, str]:
    """Every living descendant of `pid` (git runs in sessions of its own): pid -> command."""
    children: dict[int, list[int]] = {}
    commands: dict[int, str] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, IndexError):
            continue
        if fields[0] != "Z":
            child = int(stat.parent.name)
            children.setdefault(int(fields[1]), []).append(child)
            commands[child] = cmdline
    found: dict[int, str] = {}
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found[child] = commands[child]
            todo.append(child)
    return found


def test_a_push_killed_midway_changes_nothing_there_and_pushing_again_sends_it_all(
    team: tuple[Path, Person, Person],
) -> None:
    import os
    import signal
    import time

    remote, alice, bob = team
    with Session.create(alice.clone) as session:
        run(session.store.append("user", user("add the model weights")))
        run(session.fork("weights"))
        # 24 MiB that do not compress: packing them takes long enough to be interrupted.
        (session.workspace("weights") / "weights.bin").write_bytes(os.urandom(24 << 20))
        run(session.commit("Add the weights", branch="weights"))
        sid = session.id
    before = remote_refs(remote)

    push = alice.spawn("push")
    killed: dict[int, str] = {}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and push.poll() is None:
        below = _descendants(push.pid)
        if any(
            "pack-objects" in command or "receive-pack" in command for command in below.values()
        ):
            killed = below
            break
        time.sleep(0.005)
    assert killed, "the push finished before it could be interrupted"
    # The push first: killed after its git, it could see git fail and end on its own first.
    os.kill(push.pid, signal.SIGKILL)
    # git runs in a process group of its own: kill the groups, so that nothing it starts in
    # the meantime (a pack-objects feeding the remote) carries on.
    groups = set()
    for pid in killed:
        with contextlib.suppress(ProcessLookupError):
            groups.add(os.getpgid(pid))
    for group in groups - {os.getpgid(0)}:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGKILL)
    for pid in killed:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    push.wait(timeout=10)
    assert push.returncode == -signal.SIGKILL

    # Atomic: the remote has none of the session's refs (or, killed after git moved them, all
    # of them), and nothing of it is broken.
    added = set(remote_refs(remote)) - set(before)
    every = {f"refs/workbench/{sid}/{ref}" for ref in
             ("branches/main", "branches/weights", "files/weights", "shared")}  # fmt: skip
    assert added in (set(), every)
    fsck = git(remote, "fsck", "--no-dangling", check=False)
    assert "error" not in fsck.lower()

    again = alice.cli("push")
    assert again.returncode == 0, again.stderr
    assert ("files of weights: new" if not added else "up to date") in again.stdout
    assert set(remote_refs(remote)) - set(before) == every
    assert bob.cli("pull").returncode == 0
    bob_session = Session.open(bob.clone, sid, branch="weights")
    try:
        data = (bob_session.workspace("weights") / "weights.bin").stat().st_size
    finally:
        bob_session.close()
    assert data == 24 << 20


def test_a_prompt_that_starts_with_a_subcommand_goes_after_a_double_dash(
    team: tuple[Path, Person, Person], tmp_path: Path
) -> None:
    _, alice, _ = team
    assert "goes after `--`" in alice.cli("--help").stdout
    script = tmp_path / "echo.json"
    script.write_text(json.dumps([{"text": "pushed nothing, only talked"}]))
    done = alice.cli("-p", "--no-session", "--model", f"scripted:{script}", "--", "push", "it")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "pushed nothing, only talked"


def test_the_app_pushes_and_exports_through_the_workbench_object(
    team: tuple[Path, Person, Person], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What `/push` and `/export` call: `Workbench.push`, `.export`, `.export_text`."""
    import asyncio

    from workbench.runtime import Workbench, WorkbenchOptions
    from workbench.skills.graph import SkillGraph

    remote, alice, _ = team
    script = tmp_path / "turns.json"
    script.write_text(json.dumps([{"text": "the parser is table-driven now"}]))
    monkeypatch.setenv("GIT_COMMITTER_NAME", alice.name)
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", alice.email)

    async def scenario() -> tuple:
        options = WorkbenchOptions(
            cwd=alice.clone, model=f"scripted:{script}", skills=SkillGraph([])
        )
        wb = await Workbench.open(options)
        try:
            await wb.prompt("make the parser faster")
            await wb.wait_idle()
            pushed = await wb.push()
            exported = await wb.export(path=tmp_path / "out.html")
            markdown = await wb.export_text(fmt="md")
            return wb.current.session.id, pushed, exported, markdown
        finally:
            await wb.close()

    sid, pushed, exported, markdown = asyncio.run(scenario())
    assert pushed.branches == {"main": "new"} and "main: new" in pushed.render_text()
    assert f"refs/workbench/{sid}/branches/main" in remote_refs(remote)
    assert exported.path == tmp_path / "out.html" and exported.entries == 2
    assert "the parser is table-driven now" in exported.path.read_text()
    assert "**Assistant**" in markdown and "make the parser faster" in markdown


def test_a_pulled_session_grants_no_trust_and_an_open_one_is_left_for_later(
    team: tuple[Path, Person, Person],
) -> None:
    from workbench.trust import TrustStore

    _, alice, bob = team
    # Alice's project trusts itself and ships a settings key that needs trust.
    (alice.clone / ".pi").mkdir()
    (alice.clone / ".pi" / "settings.json").write_text('{"model": "openai/evil"}')
    TrustStore().trust(alice.clone)
    sid = start_session(alice, with_experiment=False)
    assert alice.cli("push").returncode == 0
    assert bob.cli("pull").returncode == 0
    assert not TrustStore().is_trusted(bob.clone)
    assert not (bob.clone / ".pi" / "settings.json").exists()

    alice.say(sid, "more", ["more"])
    assert alice.cli("push").returncode == 0
    with Session.open(bob.clone, sid):  # Bob has it open: the pull leaves it alone
        held = bob.cli("pull")
    assert held.returncode == 0
    assert f"session {sid}: not pulled: session {sid} is open in another process" in held.stdout
    assert "pull again once it is closed" in held.stdout
    assert "main: updated" in bob.cli("pull").stdout


def test_a_hostile_shared_description_is_not_trusted(
    team: tuple[Path, Person, Person], tmp_path: Path
) -> None:
    """The description comes from someone else's repository: ids that are not commit ids (an
    option, a path), numbers that are not numbers and parents that are not branches are dropped."""
    import subprocess

    remote, alice, bob = team
    sid = start_session(alice)
    assert alice.cli("push").returncode == 0
    trap = tmp_path / "written-by-git"
    hostile = {
        "version": 1, "session_id": sid, "name": "x" * 5000, "created": "soon",
        "branches": {
            "main": {"parent": None, "fork_entry": None, "created": 1, "files_base": None},
            "exp": {"parent": "../../elsewhere", "fork_entry": f"--output={trap}",
                    "created": {"a": 1}, "files_base": f"--output={trap}"},
        },
    }  # fmt: skip
    message = "workbench: shared session description\n\n" + json.dumps(hostile)
    shared_ref = f"refs/workbench/{sid}/shared"
    old = git(remote, "rev-parse", shared_ref)
    empty = git(remote, "hash-object", "-t", "tree", "-w", "--stdin", check=True)
    new = subprocess.run(
        ["git", "-c", "user.name=M", "-c", "user.email=m@x", "commit-tree", empty, "-p", old],
        cwd=remote, input=message, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    git(remote, "update-ref", shared_ref, new, old)

    pulled = bob.cli("pull")
    assert pulled.returncode == 0, pulled.stderr
    assert not trap.exists()
    tree = tree_json(bob, "--session", sid)
    branches = {b["name"]: b for b in tree["branches"]}
    assert branches["exp"]["fork_entry"] is None and branches["exp"]["parent_branch"] is None
    assert len(tree["name"]) <= 200


def test_a_kept_line_written_on_and_diverged_again_goes_on_under_its_own_name(
    team: tuple[Path, Person, Person], tmp_path: Path
) -> None:
    remote, alice, bob = team
    sid = start_session(alice, with_experiment=False)
    assert alice.cli("push").returncode == 0
    assert bob.cli("pull").returncode == 0
    alice.say(sid, "a1")
    assert alice.cli("push").returncode == 0
    bob.say(sid, "b1")
    assert "main@alice" in bob.cli("pull").stdout
    script = tmp_path / "b2.json"
    script.write_text(json.dumps([{"text": "ok b2"}]))
    wrote = bob.cli("-p", "--session", sid, "--branch", "main@alice", "--model",
                    f"scripted:{script}", "b2 on her line")  # fmt: skip
    assert wrote.returncode == 0, wrote.stderr
    alice.say(sid, "a2")
    assert alice.cli("push").returncode == 0

    pulled = bob.cli("pull")
    assert "main diverged: their line is now the branch main@alice-2" in pulled.stdout
    tree = tree_json(bob, "--session", sid)
    by_text = {e["text"]: e["branch"] for e in tree["entries"]}
    assert by_text["a2"] == "main@alice-2" and by_text["b2 on her line"] == "main@alice"
    assert by_text["a1"] == "main@alice" and by_text["b1"] == "main"
    refused = bob.cli("push")
    assert refused.returncode == 1 and "main, main@alice-2 (all sent to main)" in refused.stderr
    assert "`workbench merge main@alice-2 --into main`" in refused.stderr

    merged = bob.cli("merge", "main@alice-2", "--into", "main", "--session", sid)
    assert merged.returncode == 0, merged.stderr
    pushed = bob.cli("push")
    assert pushed.returncode == 0, pushed.stderr
    assert "main: updated" in pushed.stdout and "main@alice: new" in pushed.stdout
    assert f"refs/workbench/{sid}/branches/main@alice" in remote_refs(remote)


def test_folders_without_git_share_through_a_remote_path_and_c_continues_it(
    tmp_path: Path,
) -> None:
    """Outside git the sessions live in .pi/sessions.git; a remote is then named by its path."""
    remote = tmp_path / "shared.git"
    git(tmp_path, "init", "--quiet", "--bare", str(remote))
    alice = Person("Alice Smith", "alice@example.com", tmp_path / "a")
    bob = Person("Bob Jones", "bob@example.com", tmp_path / "b")
    for person in (alice, bob):
        person.clone.mkdir()
    alice.cli("-p", "--model", "demo", "which skill fits?")
    no_remote = alice.cli("push")
    assert no_remote.returncode == 2 and "no remote to share sessions through" in no_remote.stderr
    assert alice.cli("push", str(remote)).returncode == 0
    pulled = bob.cli("pull", str(remote))
    assert pulled.returncode == 0 and "main: new" in pulled.stdout, pulled.stderr
    assert (bob.clone / ".pi" / "sessions.git").is_dir()
    listed = json.loads(bob.cli("sessions", "--format", "json").stdout)
    assert listed[0]["authors"] == ["Alice Smith"] and listed[0]["remote"] == str(remote)

    script = tmp_path / "turn.json"
    script.write_text(json.dumps([{"text": "continuing"}]))
    went_on = bob.cli("-p", "-c", "--model", f"scripted:{script}", "go on")
    assert went_on.returncode == 0 and went_on.stdout.strip() == "continuing", went_on.stderr
    tree = tree_json(bob)
    assert tree["session"] == listed[0]["id"] and tree["entries"][-2]["text"] == "go on"
    assert sorted(json.loads(bob.cli("sessions", "--format", "json").stdout)[0]["authors"]) == [
        "Alice Smith",
        "Bob Jones",
    ]


def test_a_push_never_sends_the_file_snapshots(team: tuple[Path, Person, Person]) -> None:
    """Snapshots hold untracked files, a `.env` too: they stay on this machine."""
    remote, alice, _ = team
    with Session.create(alice.clone) as session:
        run(session.store.append("user", user("set it up")))
        (alice.clone / ".env").write_text("TOKEN=kept-on-this-machine\n")
        run(session.snapshot())
        sid = session.id
    local = git(store_dir(alice.clone), "for-each-ref", "--format=%(refname) %(objectname)")
    snapshot = next(line.split()[1] for line in local.splitlines() if "/snapshots/" in line)

    pushed = alice.cli("push")
    assert pushed.returncode == 0, pushed.stderr
    refs = remote_refs(remote)
    assert f"refs/workbench/{sid}/branches/main" in refs
    assert not [ref for ref in refs if "snapshots" in ref]
    probe = subprocess.run(["git", "cat-file", "-e", snapshot], cwd=remote, capture_output=True)
    assert probe.returncode != 0, "nor the snapshot's objects"
