"""A workspace's first file snapshot starts from the checkout's own index (real git): the files
the project has committed are not hashed and written again one by one, and the snapshot still
holds exactly the files on disk (staged, changed and untracked ones too), complete in the store."""

from __future__ import annotations

from pathlib import Path

from support.git_project import fsck_problems, git, make_project, store_dir

from workbench.sessions.session import Session


def on_disk(root: Path) -> dict[str, str]:
    found = (p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts)
    return {p.relative_to(root).as_posix(): p.read_text() for p in sorted(found)}


def snapshot_files(store: Path, commit: str) -> dict[str, str]:
    paths = git(store, "ls-tree", "-r", "--name-only", commit).splitlines()
    return {path: git(store, "cat-file", "blob", f"{commit}:{path}") + "\n" for path in paths}


async def test_the_first_snapshot_copies_the_committed_files_as_one_pack(tmp_path: Path) -> None:
    committed = {f"pkg/m{n}.py": f"VALUE = {n}\n" for n in range(30)}
    project = make_project(tmp_path / "p", {**committed, ".gitignore": "*.log\n"})
    (project / "pkg" / "m1.py").write_text("staged = True\n")
    git(project, "add", "pkg/m1.py")
    git(project, "write-tree")  # the index's cache now names a tree only the project holds
    (project / "pkg" / "m2.py").write_text("changed, not staged\n")
    (project / ".env").write_text("TOKEN=untracked\n")
    (project / "run.log").write_text("ignored\n")
    untouched = git(project, "rev-parse", "HEAD:pkg/m3.py")

    session = Session.create(project)
    await session.snapshot()
    session.close()

    store = store_dir(project)
    pattern = "refs/workbench/*/snapshots/checkout/latest"
    latest = git(store, "for-each-ref", "--format=%(objectname)", pattern)
    expected = {path: text for path, text in on_disk(project).items() if path != "run.log"}
    assert snapshot_files(store, latest) == expected
    assert fsck_problems(store) == [], "every object the snapshot names is in the store"
    assert git(store, "cat-file", "-t", untouched) == "blob"
    loose = store / "objects" / untouched[:2] / untouched[2:]
    assert not loose.exists(), "a committed file came in the pack, not hashed and written anew"
