"""`workbench export`: one self-contained HTML file (nothing fetched, everything escaped) or
Markdown for a pull request, with the conversation, tool calls, skill loads, tree and diff."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

from support.session_entries import assistant, cli, run, tool_call, tool_result, user

from workbench.messages import Message, ToolCall, Usage
from workbench.sessions.session import Session

HOSTILE = '<script>alert("x")</script><img src="https://evil.example/p.png" onerror=alert(1)>'


class Tags(HTMLParser):
    """Every tag and attribute of a page, as a browser's parser would see them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def make_session(project: Path) -> str:
    with Session.create(project) as session:
        append = session.store.append
        run(append("user", user(f"make the parser faster {HOSTILE}")))
        run(append("assistant", assistant("forking to try it", 100, 10)))
        run(session.fork("exp"))
        reply = Message(
            role="assistant",
            text="loading the skill",
            tool_calls=[ToolCall("c1", "read", {"path": "skills/speed/SKILL.md"})],
            usage=Usage(input_tokens=1200, output_tokens=80, cost=0.0123),
        )
        run(append("assistant", reply.to_dict()))
        ok = {"skill": "speed", "layer": "molecule", "verdict": "ok", "how": "read", "time": 1.0}
        result = tool_result("read", "# speed </pre><b>bold</b>", skill_load=ok)
        run(append("tool_result", {**result, "tool_call_id": "c1"}))
        run(append("assistant", tool_call("read", path="skills/atom-x/SKILL.md")))
        bad = {**ok, "skill": "atom-x", "layer": "atom", "verdict": "violation",
               "reason": "atom-x needs a molecule first", "suggestion": "load speed"}  # fmt: skip
        run(append("tool_result", tool_result("read", "refused", skill_load=bad, is_error=True)))
        (session.workspace("exp") / "fast.py").write_text("TABLE = '<table>'\n")
        run(session.commit("Table-driven parser", branch="exp"))
        done = "done: **3x** faster, see [the report](https://evil.example/r) ![x](http://e/x.png)"
        run(append("assistant", assistant(done, 300, 40)))
        return session.id


def test_html_export_is_self_contained_escaped_and_complete(project: Path, tmp_path: Path) -> None:
    sid = make_session(project)
    out = tmp_path / "out.html"
    done = cli(project, "export", "--session", sid, "--branch", "exp", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "exported exp (" in done.stdout and "bytes in" in done.stdout
    page = out.read_text()
    parser = Tags()
    parser.feed(page)
    tags = [tag for tag, _ in parser.tags]
    # Nothing is fetched: no src anywhere, no href that leaves the page, one inline script.
    for _, attrs in parser.tags:
        assert "src" not in attrs
        assert not (attrs.get("href") or "#").lstrip("#")
        assert not any(name.startswith("on") for name in attrs)
    assert tags.count("script") == 1 and tags.count("img") == 0 and "link" not in tags
    assert "default-src 'none'" in page
    text = "".join(parser.text)
    assert HOSTILE in text  # shown as text, exactly
    assert "# speed </pre><b>bold</b>" in text and "<b>bold</b>" not in page
    # The conversation, tool calls collapsed with their results, loads and violations.
    assert tags.count("details") == 2
    assert "read skills/speed/SKILL.md · done" in text
    assert "<summary>read skills/speed/SKILL.md · done" in page, (
        "one disclosure mark: the browser's"
    )
    assert "speed (molecule) · ok" in text and "atom-x (atom) · violation" in text
    assert "atom-x: atom-x needs a molecule first — load speed" in text
    assert "committed " in text and "Table-driven parser" in text
    # Figures, the place in the tree, the diff of the experiment's files.
    for label, value in (
        ("tokens in", "1,600"),
        ("tokens out", "130"),
        ("cost", "$0.0123 + unknown"),
    ):
        assert f'<div class="figure">{label}<b>{value}</b></div>' in page
    assert "main → exp (from " in text and "⎇ exp (6 entries)  ◀ this export" in text
    assert "+TABLE = '<table>'" in text
    # Messages are Markdown: rendered, but a link or an image stays text.
    assert "<strong>3x</strong>" in page and "[the report](https://evil.example/r)" in text
    assert "![x](http://e/x.png)" in text


def test_markdown_export_for_a_pull_request(project: Path) -> None:
    sid = make_session(project)
    done = cli(project, "export", "--session", sid, "--branch", "exp", "--format", "md", "-o", "-")
    assert done.returncode == 0, done.stderr
    md = done.stdout
    assert md.startswith("## make the parser faster")
    assert "&lt;script>alert" in md and "<script>" not in md and "<img" not in md
    assert "<details><summary>read skills/speed/SKILL.md · done · skill speed: ok</summary>" in md
    assert '```json\n{\n  "path": "skills/speed/SKILL.md"\n}\n```' in md
    assert "- skill `atom-x`" not in md and "atom-x: atom-x needs a molecule first" in md
    assert "```diff\n" in md and "+TABLE = '<table>'" in md
    assert "`main` → `exp`" in md
    assert "2 skill loads, 1 violation\n" in md, "a count agrees with its noun"


def test_a_merge_entry_lists_the_files_it_changed(project: Path, tmp_path: Path) -> None:
    sid = make_session(project)

    async def summarize(messages: list[Message]) -> str:
        return "## Goal\nA faster parser.\n\n<modified-files>\nfast.py\n</modified-files>"

    with Session.open(project, sid) as session:
        run(session.merge("exp", summarize=summarize))
    out = tmp_path / "merged.html"
    done = cli(project, "export", "--session", sid, "--branch", "main", "-o", str(out))
    assert done.returncode == 0, done.stderr
    page = out.read_text()
    assert "modified-files" not in page, "the summary's file list is not shown as a raw tag"
    assert "<strong>Files changed:</strong>" in page and "<code>fast.py</code>" in page


def test_export_defaults_to_the_current_branch_and_a_named_file(project: Path) -> None:
    sid = make_session(project)
    done = cli(project, "export", "--format", "md")
    assert done.returncode == 0, done.stderr
    written = project / f"workbench-{sid}-exp.md"
    assert written.exists() and "branch `exp`" in written.read_text()
