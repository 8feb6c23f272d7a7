"""A Markdown export rendered by a CommonMark renderer (most do not sanitise as GitHub does)
carries no live HTML from the conversation, however the reply plays with code fences and spans,
and no NUL byte."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

from markdown_it import MarkdownIt
from support.session_entries import assistant, cli, run, tool_result, user

from workbench.sessions.session import Session

ATTACKS = [
    "an indented fence is code to us only:\n    ```\n<img src=x onerror=alert(1)>\n    ```",
    "a closer with text after it closes nothing:\n```\nx\n``` no\n```\n<img src=x onerror=alert(2)>"
    "\n```",
    "an escaped backtick opens no span: \\`<img src=x onerror=alert(3)>`",
    "two backticks need two to close: ``<img src=x onerror=alert(4)>`",
    "a tab makes indented code:\n\t```\n<img src=x onerror=alert(5)>\n\t```",
    "a backtick fence's info has no backtick:\n``` a`b\n<img src=x onerror=alert(6)>\n```",
    "a fence in a list item:\n- ```\n  x\n  ```\n<img src=x onerror=alert(7)>",
    "a NUL\x00byte",
]
KEPT = "real code stays as it was:\n```html\n<b>kept</b>\n```\nand `a < b` too"


class Tags(HTMLParser):
    """Every tag and attribute of a page, as a browser's parser sees them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def test_a_rendered_markdown_export_has_no_live_html_from_the_conversation(
    project: Path,
) -> None:
    with Session.create(project) as session:
        append = session.store.append
        run(append("user", user("show me")))
        for text in ATTACKS:
            run(append("assistant", assistant(text)))
        run(append("assistant", assistant(KEPT)))
        load = {"skill": "x`<img src=x onerror=alert(9)>`", "verdict": "ok", "how": "read"}
        run(append("tool_result", tool_result("read", "text", skill_load=load)))
        sid = session.id

    done = cli(project, "export", "--session", sid, "--format", "md", "-o", "-")

    assert done.returncode == 0, done.stderr
    assert "\x00" not in done.stdout and "a NULbyte" in done.stdout
    page = MarkdownIt("commonmark").render(done.stdout)
    tags = Tags()
    tags.feed(page)
    assert [tag for tag, _ in tags.tags if tag == "img"] == []
    assert not [a for _, attrs in tags.tags for a in attrs if a.startswith("on")]
    assert '<code class="language-html">&lt;b&gt;kept&lt;/b&gt;\n</code>' in page
    assert "<code>a &lt; b</code>" in page
