"""What an export may carry: never its own earlier pages, the untracked files it shows named, and
no credential (the same check as a push: refused, or written with `--redact`)."""

from __future__ import annotations

from pathlib import Path

from support.session_entries import assistant, cli, run, user

from workbench.sessions.session import Session

KEY = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"


def make_session(project: Path, question: str) -> str:
    with Session.create(project) as session:
        run(session.store.append("user", user(question)))
        run(session.store.append("assistant", assistant("the table is built once now")))
        return session.id


def test_an_export_never_embeds_an_earlier_one_and_names_the_untracked_files_it_shows(
    project: Path,
) -> None:
    sid = make_session(project, "make the parser faster")
    (project / "notes.txt").write_text("remember the table\n")
    page = project / "page.html"
    done = cli(project, "export", "-o", str(page))
    assert done.returncode == 0, done.stderr
    assert "untracked files included: notes.txt" in done.stdout
    sizes = []
    for _ in range(3):
        done = cli(project, "export", "--format", "md")
        assert done.returncode == 0, done.stderr
        assert "untracked files included: notes.txt\n" in done.stdout  # not the pages
        written = (project / f"workbench-{sid}-main.md").read_text()
        sizes.append(len(written))
    assert "+remember the table" in written
    assert "page.html" not in written and "workbench-export" not in written.rpartition("\n\n")[0]
    assert max(sizes) - min(sizes) < 40, sizes  # the same page each time, not one inside another
    again = cli(project, "export", "-o", str(page))
    assert again.returncode == 0 and f"workbench-{sid}-main.md" not in page.read_text()


def test_an_export_with_a_credential_is_refused_and_redact_writes_it_clean(
    project: Path, tmp_path: Path
) -> None:
    make_session(project, f"why does the client fail?\n{KEY}")
    (project / ".env").write_text(f"DEBUG=1\nOPENAI_API_KEY={KEY}\n")  # not in .gitignore
    page = tmp_path / "page.html"

    refused = cli(project, "export", "-o", str(page))
    assert refused.returncode == 1, refused.stdout
    assert "not exported: 2 credentials found" in refused.stderr
    assert "(user on main), text line 2: OpenAI key sk-pro…" in refused.stderr
    assert "the diff of main: .env line 2: OpenAI key sk-pro…" in refused.stderr
    assert "--redact" in refused.stderr and KEY not in refused.stderr
    assert not page.exists()
    assert cli(project, "export", "--format", "md", "-o", "-").returncode == 1

    done = cli(project, "export", "--redact", "-o", str(page))
    assert done.returncode == 0, done.stderr
    assert "untracked files included: .env" in done.stdout
    assert "2 credentials replaced (the session is unchanged)" in done.stdout
    text = page.read_text()
    assert KEY not in text and KEY[8:30] not in text
    assert text.count("[REDACTED OpenAI key]") == 2 and "OPENAI_API_KEY=" in text
    markdown = cli(project, "export", "--redact", "--format", "md", "-o", "-")
    assert markdown.returncode == 0 and KEY not in markdown.stdout
    assert "untracked files included: .env" in markdown.stderr


def test_a_virtual_environment_made_in_the_project_is_not_part_of_the_export(
    project: Path,
) -> None:
    make_session(project, "set it up")
    venv = project / "v"  # `python3 -m venv v`, which `.gitignore` does not list
    (venv / "lib" / "site-packages" / "boto").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (venv / "lib" / "site-packages" / "boto" / "example.rst").write_text(f"key = {KEY}\n")
    (project / ".env").write_text("DEBUG=1\n")
    done = cli(project, "export", "--format", "md")
    assert done.returncode == 0, done.stderr  # the example key inside the venv is not read
    assert "untracked files included: .env\n" in done.stdout
