"""The Markdown export keeps a message's Markdown but not its raw HTML."""

from __future__ import annotations

from workbench.sessions.export.markdown import _fenced, _text


def test_raw_html_is_neutralised_outside_code_only() -> None:
    text = "Use <b>this</b> and `a < b` here\n```html\n<script>kept()</script>\n```\n<img src=x>"
    assert _text(text) == (
        "Use &lt;b>this&lt;/b> and `a < b` here\n"
        "```html\n<script>kept()</script>\n```\n"
        "&lt;img src=x>"
    )


def test_an_unclosed_fence_is_closed_so_the_rest_of_the_page_stays_ours() -> None:
    assert _text("```\n<b>code").endswith("<b>code\n```")


def test_a_fence_is_longer_than_any_backtick_run_inside() -> None:
    lines = _fenced("a ```` b", "")
    assert lines[0] == "`````" and lines[2] == "`````"
