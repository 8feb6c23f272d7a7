"""Pictures of the app (pytest-textual-snapshot), each in a fixed, scripted state.

Update them after a deliberate change with `python -m pytest tests/tui --snapshot-update` and
look at every changed picture before committing it. `python tests/tui/make_screenshots.py` draws
the same states into docs/screenshots/ for the README and the docs.
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from xml.etree import ElementTree

from support.app_pilot import PICTURE_SIZE, build_app, make_project, opened
from support.app_scenarios import SCENARIOS


def matches(snap_compare, tmp_path: Path, name: str) -> bool:
    scenario = SCENARIOS[name]
    with ExitStack() as stack:
        project = make_project(tmp_path / "project")
        app = build_app(project, **scenario.options(project, stack))
        return snap_compare(app, run_before=scenario.drive, terminal_size=PICTURE_SIZE)


def test_idle_after_an_exchange(snap_compare, tmp_path) -> None:
    """You should see the prompt "ship a change" and the offline demo's replies in the chat:
    each step a short reply ("Next, the compound skill ...") followed by green-ticked `read`
    blocks of the SKILL.md files it read, and the final answer listing the compound, molecule
    and atoms. Right: the skill graph (compound-ship-change > molecules > atoms, C/M/A letters,
    the loaded ones bold with ●, the compound marked ▶) and the conversation tree (branch main,
    the prompt marked ▶ as the current position). Footer: demo (offline demo), tokens, no cost,
    context share, branch main, enforcer warn. The editor is empty."""
    assert matches(snap_compare, tmp_path, "idle")


def test_a_reply_streaming_with_messages_queued(snap_compare, tmp_path) -> None:
    """You should see the prompt and a reply cut off mid-way (the server holds the stream):
    a heading "What changes", two bullets, and the start of "How it is checked". Above the
    editor: "Steering: keep the old behaviour behind a flag" and "Follow-up: then update the
    README", with the hint about Alt+Up and Esc. The footer says "working"; the model is
    openai/pictures, its cost unknown (litellm has no price for it), said once: no "no cost"."""
    assert matches(snap_compare, tmp_path, "streaming")


def test_a_skill_loaded_against_the_graph(snap_compare, tmp_path) -> None:
    """You should see a read of skills/molecule-implement-change/SKILL.md marked with "skill
    molecule-implement-change violation" in red, a red ◆ note saying the compound layer was
    skipped and to load compound-ship-change first, and the skill panel with a red border,
    molecule-implement-change in red with ● and ⚠1, and "⚠ 1 violation" in its title."""
    assert matches(snap_compare, tmp_path, "violation")


def test_the_tree_after_a_fork_and_a_merge(snap_compare, tmp_path) -> None:
    """You should see the conversation tree focused: branch main with its prompt, the branch
    try-b forked from it with its own prompt "plan a change", and a ⇐ merge entry on main that
    reads "try-b into main: plan a change" (the summary's goal, not its "## Goal" heading); the
    current position (the merge entry) is marked ▶. The chat ends with the merge entry and,
    under it, the merge's result ("Merged the conversation of try-b into main ...")."""
    assert matches(snap_compare, tmp_path, "tree")


def test_the_status_view(snap_compare, tmp_path) -> None:
    """You should see the status of branch notes in a framed view: "⎇ notes   forked from main
    at ...", its entries and tokens, its worktree (…/notes) with uncommitted changes, "2 files
    changed" and a list of NOTES.md (added) and README.md (modified), both uncommitted, with
    NOTES.md highlighted; the last line says Enter shows a file's diff and d the whole diff."""
    assert matches(snap_compare, tmp_path, "status")


def test_the_diff_view(snap_compare, tmp_path) -> None:
    """You should see "Diff of notes since the fork" over the status view: "2 files changed
    +6 -0" (the -0 dimmed), then NOTES.md (added, +4 -0) with its hunk header in cyan and four
    green + lines, and README.md (modified, +2 -0) with the context line "demo project" and two
    green + lines; no "index" or "+++" lines. The last line says how to scroll and that Esc goes
    back."""
    assert matches(snap_compare, tmp_path, "diff")


def test_a_question_as_a_quick_pick(snap_compare, tmp_path) -> None:
    """You should see the reply ending in options A-D and, above the editor, the quick pick
    with "A Approve the plan (recommended)" highlighted, B and C, and D (Other), with the hint
    that a letter or Enter picks and Esc or typing answers freely."""
    assert matches(snap_compare, tmp_path, "quick-pick")


async def test_pictures_keep_the_space_that_starts_a_differently_styled_run(tmp_path) -> None:
    """SVG renderers that follow the XML rules (librsvg) drop a leading space in a text run
    unless told to keep spaces: the footer would read `demo(offline demo)`."""
    app = build_app(make_project(tmp_path / "project"), model="demo")
    async with app.run_test(size=PICTURE_SIZE) as pilot:
        await opened(pilot)
        svg = ElementTree.fromstring(app.export_screenshot())
    assert svg.get("{http://www.w3.org/XML/1998/namespace}space") == "preserve"
    runs = [text.text for text in svg.iter("{http://www.w3.org/2000/svg}text")]
    assert "\xa0(offline\xa0demo)" in runs


def test_the_sweep_view(snap_compare, tmp_path) -> None:
    """You should see a framed view titled "sweep-1: fix the failing test in tests/test_dates.py"
    over the chat: four runs, sweep-1.gpt-4.1-1 done with tokens 18412, $0.0412, 21.3 s and a
    green ✓; sweep-1.gpt-4.1-2 done with a red "✗ 1"; sweep-1.claude-sonnet-4-5-1 running (in
    cyan) with the tool bash; sweep-1.claude-sonnet-4-5-2 queued (dim). Below, the variants:
    "★ gpt-4.1" first in bold (1/2, 50%, 23.1s, $0.0405, 18271), then claude-sonnet-4-5 (0/2,
    0%, ?). The
    last line says Enter opens a run's status and diff, Alt+M merges it and Esc stops every
    run."""
    assert matches(snap_compare, tmp_path, "sweep")


def test_the_eval_view(snap_compare, tmp_path) -> None:
    """You should see a framed view titled "Evals" over the chat: "eval of compound-ship-change:
    1 case × 2 configurations (sweep-1)", a table of six runs of fix-dates (three with_skill
    passed, loaded at turn 1 with compound, molecule and atom; three without_skill failed,
    not loaded), then the configurations as mean ± sd (with_skill 100% pass rate, 100% uptake;
    without_skill 0%), and the line "with_skill vs without_skill (3 and 3 runs): pass rate
    +100% ..." ending with "with_skill passes more often"."""
    assert matches(snap_compare, tmp_path, "eval")
