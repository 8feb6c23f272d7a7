"""The command registry holds together: one name per surface, a runtime call wherever no front
end acts on its own, and a module for every CLI subcommand."""

from __future__ import annotations

import importlib
from collections import Counter

import pytest

from workbench.cli import MODULES
from workbench.runtime.commands import COMMANDS, SURFACES, CommandSpec, Surface, builtin
from workbench.runtime.commands.registry import Argument

ACT_ON_THEIR_OWN = {"skills", "help", "quit"}
"""The app's and an editor's own: the front end acts (a pane, the keys, leaving)."""


@pytest.mark.parametrize("surface", sorted(SURFACES))
def test_a_name_is_taken_once_per_surface(surface: Surface) -> None:
    names = Counter(spec.rpc_type if surface == "rpc" else spec.name for spec in builtin(surface))
    assert [name for name, n in names.items() if n > 1] == []


def test_every_command_an_app_editor_or_script_runs_has_its_runtime_call() -> None:
    missing = [
        spec.name for spec in COMMANDS if spec.surfaces & {"app", "acp", "rpc"} and spec.run is None
    ]
    assert sorted(set(missing)) == sorted(ACT_ON_THEIR_OWN)


@pytest.mark.parametrize("spec", builtin("cli"), ids=lambda spec: spec.name)
def test_every_cli_subcommand_has_its_module(spec: CommandSpec) -> None:
    module = importlib.import_module(f"workbench.commands.{MODULES.get(spec.name, spec.name)}")
    assert callable(module.configure) and callable(module.run)


def test_the_slash_form_gives_its_text_to_the_first_argument_and_names_a_missing_one() -> None:
    from workbench.errors import WorkbenchError

    merge = next(spec for spec in builtin("acp") if spec.name == "merge")
    assert merge.usage == "/merge <branch>" and merge.needs_argument
    assert merge.parse_text(" try-b ") == {"branch": "try-b", "into": None, "remove_worktree": None}
    with pytest.raises(WorkbenchError) as refused:
        merge.parse_text("")
    assert (refused.value.message, refused.value.hint) == (
        "/merge needs a branch",
        "for example: /merge try-b",
    )
    assert Argument("model", rpc_required=True).required_in("rpc")
    assert not Argument("model", rpc_required=True).required_in("acp")
