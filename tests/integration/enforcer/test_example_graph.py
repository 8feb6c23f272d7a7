"""The example graph in `skills/`: an atom that makes sense only under its molecule is a violation
when read on its own, a standalone one is not (a real headless run, the real enforcer)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from support.workbench_process import REPO, run_workbench, write_script, write_settings


def read(path: str) -> dict[str, object]:
    return {"tool_calls": [{"name": "read", "arguments": {"path": path}}]}


def test_reading_an_atom_out_of_order_is_a_violation_unless_it_is_standalone(project: Path):
    shutil.copytree(REPO / "skills", project / "skills")
    write_settings(project, {"skills": {"paths": ["../skills"]}, "enforcer": {"mode": "warn"}})
    model = write_script(
        project,
        [
            read("skills/atom-run-tests/SKILL.md"),
            read("skills/atom-merge-branch/SKILL.md"),
            {"text": "done"},
        ],
    )
    done = run_workbench("--mode", "json", "--no-session", "--model", model, "go", cwd=project)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    loads = {e["skill"]: e for e in events if e["type"] == "skill_load"}
    assert loads["atom-run-tests"]["verdict"] == "ok", "a standalone atom may be read alone"
    merge = loads["atom-merge-branch"]
    assert (merge["verdict"], merge["standalone"]) == ("violation", False)
    assert "molecule-land-change" in merge["reason"] + merge["suggestion"], merge
