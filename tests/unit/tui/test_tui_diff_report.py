"""The diff view's text: files split out with their change and counts, lines in colour."""

from __future__ import annotations

import io

from rich.console import Console
from rich.text import Text

from workbench.tui import diff_report as view
from workbench.tui import palette

DIFF = """diff --git a/docs/a b.md b/docs/a b.md
new file mode 100644
index 0000000..3e75765
--- /dev/null
+++ b/docs/a b.md\t
@@ -0,0 +1,2 @@
+--- a rule, not a header
+second
diff --git a/logo.png b/logo.png
index 1111111..2222222 100644
Binary files a/logo.png and b/logo.png differ
diff --git a/run.sh b/run.sh
old mode 100644
new mode 100755
diff --git a/src/app.py b/src/app.py
index 5626abf..de7b749 100644
--- a/src/app.py
+++ b/src/app.py
@@ -1,3 +1,3 @@ def main():
 keep
---- removed line that starts with dashes
+print('v2')
\\ No newline at end of file
diff --git a/old.txt b/old.txt
deleted file mode 100644
index 286c5f5..0000000
--- a/old.txt
+++ /dev/null
@@ -1 +0,0 @@
-gone
"""


def text_of(renderable: object) -> str:
    console = Console(width=100, file=io.StringIO(), record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_a_diff_splits_into_files_with_their_change_and_counts() -> None:
    files = view.split_files(DIFF)
    assert [(f.path, f.change, f.added, f.removed) for f in files] == [
        ("docs/a b.md", "added", 2, 0),
        ("logo.png", "modified", 0, 0),
        ("run.sh", "modified", 0, 0),
        ("src/app.py", "modified", 1, 1),
        ("old.txt", "deleted", 0, 1),
    ]
    assert files[1].lines == ["\\ Binary files a/logo.png and b/logo.png differ"]
    assert files[2].lines == ["\\ old mode 100644", "\\ new mode 100755"]


def test_the_view_shows_headers_hunks_and_lines_without_gits_bookkeeping() -> None:
    shown = text_of(view.diff_report(DIFF))
    assert shown.startswith("5 files changed  +3 -2\n")
    assert "▍src/app.py  modified  +1 -1\n@@ -1,3 +1,3 @@ def main():\n keep\n----" in shown
    assert "Binary files a/logo.png and b/logo.png differ" in shown
    assert "No newline at end of file" in shown and "\\ No newline" not in shown
    assert "index " not in shown and "+++ " not in shown and "new file mode" not in shown


def test_added_and_removed_lines_and_hunk_headers_are_coloured() -> None:
    report = view.diff_report(DIFF)
    lines = {t.plain: t for t in report.renderables if isinstance(t, Text)}  # type: ignore[attr-defined]
    assert lines["+print('v2')"].style == palette.SUCCESS_COLOUR
    assert lines["-gone"].style == palette.ERROR_COLOUR
    assert lines[" keep"].style == ""
    hunk = lines["@@ -1,3 +1,3 @@ def main():"]
    assert [(hunk.plain[s.start : s.end], s.style) for s in hunk.spans] == [
        ("@@ -1,3 +1,3 @@", view.HUNK),
        (" def main():", palette.DIM),
    ]


def test_no_changes_and_a_very_long_diff_say_so() -> None:
    assert text_of(view.diff_report("")) == "No changes to its files since the fork.\n"
    assert text_of(view.diff_report("", "src")) == "No changes to src since the fork.\n"
    assert text_of(view.diff_report("", None, "the last commit")) == (
        "No changes to its files since the last commit.\n"
    )
    body = "".join(f"+line {n}\n" for n in range(view.MAX_LINES + 50))
    long = f"diff --git a/big b/big\nnew file mode 100644\n@@ -0,0 +1 @@\n{body}"
    shown = text_of(view.diff_report(long))
    assert f"+line {view.MAX_LINES - 2}\n" in shown and f"+line {view.MAX_LINES - 1}\n" not in shown
    assert shown.rstrip().endswith("… 51 more lines not shown: /diff PATH shows one file")
