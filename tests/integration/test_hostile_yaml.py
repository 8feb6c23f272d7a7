"""Hostile frontmatter is one lint error, never a crash or a hang. Each run is a child process
with a time limit and a memory limit (RLIMIT_AS), so that a regression fails instead of taking
the machine down."""

from __future__ import annotations

import resource
import subprocess
from pathlib import Path

from support.workbench_process import workbench_command

LIMIT_BYTES = 1 << 30


def limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT_BYTES, LIMIT_BYTES))


def run_limited(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        workbench_command(*args),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=limited,
    )


def laughs() -> str:
    """A 1 KB "billion laughs": nine levels of nine aliases each."""
    lines = ["metadata:", "  tags:", "    a: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]"]
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"    {name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]")
    return "\n".join(lines)


def write_skill(root: Path, name: str, extra: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: a hostile skill\n{extra}\n---\n# {name}\n"
    )
    return folder


def test_an_alias_bomb_and_deep_nesting_are_one_error_each(tmp_path: Path) -> None:
    skills = tmp_path / "skills"
    write_skill(skills, "laughs", laughs())
    write_skill(skills, "deep", "metadata:\n  deep: " + "[" * 900 + "]" * 900)
    done = run_limited("lint", str(skills), cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert (
        "laughs/SKILL.md:11: error yaml-too-complex the frontmatter expands to more" in done.stdout
    )
    assert "deep/SKILL.md:5: error yaml-too-complex the frontmatter nests deeper than 64" in (
        done.stdout
    )
    assert done.stdout.endswith("2 skills, 2 errors, 0 warnings\n")

    compiled = run_limited("compile", str(skills), cwd=tmp_path)
    assert compiled.returncode == 0, compiled.stderr  # within the time and memory limits
