"""A run's worktree made ready for its case and configuration, before its agent starts.

The skill under test is copied from the user's disk over the worktree's copy (so that uncommitted
edits are what is measured), or replaced by an older version (`previous`), or removed with every
skill the configuration leaves out. Every skill's `evals/` folder is taken out: the model must not
read the expected answers. Then the case's `files` (relative to the skill folder) are copied to
the top of the worktree under their own names. All of it is committed on the run's project
branch (`commit_prepared`): it travels with the branch to wherever the run executes (a Ray
worker checks the branch out), and what the run changed is what differs from that commit.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from workbench.errors import UsageError
from workbench.evals.configurations import Configuration
from workbench.sessions.store.gitcmd import GitRunner
from workbench.sessions.store.identity import conversation_identity
from workbench.skills.evals_file import EvalCase
from workbench.skills.graph import SkillGraph
from workbench.skills.model import Skill


def folder_in_project(skill: Skill, project_root: Path) -> Path:
    """The skill's folder relative to the project: where each worktree holds its copy."""
    folder = skill.path.parent.resolve()
    try:
        return folder.relative_to(project_root.resolve())
    except ValueError:
        raise UsageError(
            f"{skill.name} ({folder}) is not inside the project {project_root}",
            "evaluate a skill of the project: add its folder to skills.paths in .pi/settings.json",
        ) from None


def _copy(source: Path, target: Path) -> None:
    if source.is_dir():
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("evals"))
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)


def prepare(
    worktree: Path,
    project_root: Path,
    skill: Skill,
    graph: SkillGraph,
    configuration: Configuration,
    case: EvalCase | None,
) -> None:
    """Make `worktree` hold what `configuration` offers and what `case` needs (git worker)."""
    for other in graph.skills.values():
        try:
            place = worktree / folder_in_project(other, project_root)
        except UsageError:
            continue  # a skill from outside the project: not in the worktree
        if other.name in configuration.removed:
            shutil.rmtree(place, ignore_errors=True)
        else:
            shutil.rmtree(place / "evals", ignore_errors=True)
    if skill.name not in configuration.removed:
        place = worktree / folder_in_project(skill, project_root)
        shutil.rmtree(place, ignore_errors=True)
        _copy(configuration.source or skill.path.parent, place)
    for name in case.files if case else ():
        source = skill.path.parent / name
        _copy(source, worktree / Path(name).name)


def commit_prepared(worktree: Path, message: str) -> str:
    """Commit what `prepare` did on the worktree's project branch (no hooks of the user's: the
    commit is the eval's, not theirs); the commit the run starts from."""
    git = GitRunner(worktree)
    committer = git.with_env(conversation_identity(git).env())
    committer.run("add", "--all")
    committer.run("commit", "--quiet", "--no-verify", "--allow-empty", "-m", message)
    return git.run("rev-parse", "HEAD")


def changed_since(worktree: Path, prepared: str) -> list[str]:
    """What the run changed in its worktree since `prepared`, committed or not (a Ray worker
    commits the run's files before it sends the branch back)."""
    git = GitRunner(worktree)
    changed = git.run("diff", "--name-only", "-z", prepared, strip=False).split("\0")
    new = git.run("ls-files", "--others", "--exclude-standard", "-z", strip=False).split("\0")
    return sorted({name for name in changed + new if name})
