"""Claude Code's `user-invocable: false`: the skill is not offered to the user as `/skill:NAME`
(it may still be listed to the model). The decision is `skills.model.user_invocable`; the TUI's
completion list (`SessionView.skill_commands`) asks it and nothing else."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from workbench.skills.discover import SkillRoot, load_skills
from workbench.skills.model import user_invocable

CASES = {
    "plain": ("", True),
    "hidden": ("user-invocable: false", False),
    "hidden-quoted": ('user-invocable: "false"', False),
    "hidden-capital": ("user-invocable: False", False),
    "offered": ("user-invocable: true", True),
    "no-is-text": ("user-invocable: no", True),  # YAML 1.2: `no` is the text no, not false
    "empty": ("user-invocable:", True),
}


@pytest.fixture
def skills(tmp_path: Path, write_skill):
    for name, (line, _) in CASES.items():
        write_skill(name, f"---\nname: {name}\ndescription: The {name} skill.\n{line}\n---\nBody\n")
    return load_skills([SkillRoot(tmp_path / "skills", "explicit")], use_cache=False)


def test_user_invocable_false_keeps_a_skill_from_the_user_only(skills) -> None:
    decided = {name: user_invocable(skill) for name, skill in skills.graph.skills.items()}
    assert decided == {name: offered for name, (_, offered) in CASES.items()}
    assert skills.graph.get("hidden").offered_to_model  # the model still sees it


def test_the_slash_command_list_leaves_out_what_the_user_may_not_invoke(skills) -> None:
    from workbench.tui.components.skill_panel import SkillPanel
    from workbench.tui.session_view import SessionView

    panel = SimpleNamespace(graph=skills.graph)
    host = SimpleNamespace(query_one=lambda kind: panel if kind is SkillPanel else None)
    names = [command.name for command in SessionView(host).skill_commands()]  # type: ignore[arg-type]
    assert names == sorted(n for n, (_, offered) in CASES.items() if offered)
