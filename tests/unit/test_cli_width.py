"""Subcommands format their help at the width argparse would find through shutil, without
importing shutil (a lint starts faster without it and its compression modules)."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from workbench import cli


@pytest.mark.parametrize("columns", ["40", "100", "", "wide", None])
def test_the_width_is_shutils(columns: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert cli._columns() == shutil.get_terminal_size().columns


def test_a_subcommand_does_not_import_shutil() -> None:
    code = (
        "import sys; from workbench import cli; p = cli._subcommand_parser('lint');"
        "import workbench.commands.lint as m; m.configure(p); p.parse_args(['x']);"
        "print('shutil' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
