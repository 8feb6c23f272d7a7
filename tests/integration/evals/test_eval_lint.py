"""`workbench lint` checks a skill's evals files, and the skill-format leftovers of issue 29:
real subprocesses, real files."""

from __future__ import annotations

import json
from pathlib import Path

from support.workbench_process import run_workbench

SKILL = "---\nname: {name}\ndescription: Does {name}.\n---\n\nBody.\n"


def skill(root: Path, name: str, evals: object | None = None, triggers: object = None) -> Path:
    folder = root / name
    (folder / "evals").mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL.format(name=name))
    if evals is not None:
        (folder / "evals" / "evals.json").write_text(json.dumps(evals))
    if triggers is not None:
        (folder / "evals" / "triggers.json").write_text(json.dumps(triggers))
    return folder


def case(case_id: object, **extra: object) -> dict[str, object]:
    return {"id": case_id, "prompt": "Do it.", "expected_output": "done", **extra}


def test_wrong_shapes_duplicate_ids_and_missing_files_are_errors(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill(root, "fine", {"skill_name": "fine", "evals": [case(1, files=["evals/in.txt"])]})
    (root / "fine" / "evals" / "in.txt").write_text("x")
    skill(root, "shapeless", {"cases": []})
    skill(root, "twice", {"evals": [case(1), case(1), case(2, assertions="not a list")]})
    skill(root, "lost", {"evals": [case("a", files=["evals/gone.csv"])]})
    skill(root, "vague", triggers=[{"query": "hi"}, {"query": "ok", "should_trigger": False}])
    done = run_workbench("lint", "skills", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    lines = [line for line in done.stdout.splitlines() if not line.startswith("    ")]
    found = sorted(line.split(": ", 1)[1] for line in lines[:-1])
    assert found == [
        "error evals-file-missing case a: no file 'evals/gone.csv'",
        "error evals-id-duplicate case id 1 twice",
        "error evals-invalid case 3: `assertions` is a list of text",
        'error evals-invalid is not {"skill_name": ..., "evals": [...]}',
        "error triggers-invalid entry 1 is not {'query': text, 'should_trigger': true|false}",
    ]
    assert lines[-1] == "5 skills, 5 errors, 0 warnings"
    ignored = run_workbench("lint", "skills", "--ignore", "evals-id-duplicate", cwd=tmp_path)
    assert "evals-id-duplicate" not in ignored.stdout and "evals-invalid" in ignored.stdout


def test_the_example_graphs_evals_lint_clean_and_name_real_files() -> None:
    repo = Path(__file__).resolve().parents[3]
    done = run_workbench("lint", "--strict", "skills", cwd=repo)
    assert (done.returncode, done.stderr) == (0, "")
    with_evals = sorted(p.parent.parent.name for p in (repo / "skills").glob("*/evals/evals.json"))
    assert with_evals == ["atom-run-tests", "atom-write-plan", "compound-ship-change"]


def test_claude_codes_paths_and_shell_fields_are_known(tmp_path: Path) -> None:
    folder = tmp_path / "skills" / "scoped"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: scoped\ndescription: d\npaths: ['src/**']\nshell: bash\nauthor: me\n---\n"
    )
    done = run_workbench("lint", "skills", cwd=tmp_path)
    assert "unknown-field" in done.stdout and "`author`" in done.stdout
    assert "`paths`" not in done.stdout and "`shell`" not in done.stdout


def test_a_folder_with_only_a_lowercase_skill_md_says_to_rename_it(tmp_path: Path) -> None:
    folder = tmp_path / "lower"
    folder.mkdir()
    (folder / "skill.md").write_text(SKILL.format(name="lower"))
    done = run_workbench("lint", "lower", cwd=tmp_path)
    assert done.returncode == 2
    assert "the file is named skill.md, not SKILL.md" in done.stderr
    assert "mv " in done.stderr and "no skill folder below it" not in done.stderr
