"""The command registry holds together: one name per surface, a runtime call wherever no front
end acts on its own, and a module for every CLI subcommand."""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import workbench.commands
from workbench.cli import MODULES, subcommand_module, subcommands
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


def test_the_cli_tells_the_registrys_subcommands_by_their_modules_alone(tmp_path: Path) -> None:
    """`workbench NAME` finds its subcommand without importing the registry (~6 ms of every
    subcommand): exactly the registry's CLI names have a module with `configure` and `run`, and
    a subcommand's help still starts with its line of the registry."""
    package = Path(workbench.commands.__file__).parent
    candidates = {path.stem for path in package.iterdir()} | set(MODULES) | set(subcommands())
    found = {name for name in candidates if subcommand_module(name) is not None}
    assert found == set(subcommands())
    assert subcommand_module("fix") is None and subcommand_module("fix the parser") is None
    code = (
        "import sys; from workbench.cli import main; main(['fork', 'x'])"
        "; print('workbench.runtime' in sys.modules)"
    )
    refused = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True
    )
    assert "no sessions in" in refused.stderr
    assert refused.stdout.strip() == "False", "the subcommand was found through the registry"
    helped = subprocess.run(
        [sys.executable, "-m", "workbench", "fork", "--help"], capture_output=True, text=True
    )
    assert helped.stdout.split("\n\n")[1] == subcommands()["fork"]


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
