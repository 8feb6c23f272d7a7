"""Find skill folders, parse them and build the project's skill graph.

The rest of the application calls `load_project_skills()` (or `load_skills()` with roots of its
own) and gets a `SkillSet`: the graph, every finding made while reading, and what was searched.

Discovery order, first match of a name wins: explicit paths, `skills.paths` from settings,
`<project>/.pi/skills`, `.agents/skills` in the working folder and each folder above it up to
the project root, `~/.pi/agent/skills`, `~/.agents/skills`, then Claude Code's
`<project>/.claude/skills` and `~/.claude/skills`. A folder holding `SKILL.md` is one skill; its
subfolders are not searched. Explicit and settings paths are searched fully, hidden folders
included (corpora keep skills in `.curated/`); the default roots skip hidden folders and
`node_modules`, and ignore files (`.gitignore`, `.ignore`, `.fdignore`) in a root and the
folders below it are honoured. `.git` is never searched. Folder links are followed once; a
link back to one of its own ancestors is reported as a loop.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Literal

from workbench.config import Settings, SkillFilter, agent_dir, find_project_root
from workbench.errors import UsageError
from workbench.skills.cache import ParseCache, ParseResult
from workbench.skills.filters import enabled
from workbench.skills.graph import SkillGraph
from workbench.skills.ignore import IGNORE_FILES, IgnoreRules
from workbench.skills.model import Diagnostic, Skill
from workbench.skills.rules import finding
from workbench.trust import project_settings

SKILL_FILE = "SKILL.md"
PATH_KINDS = "a skills folder, a skill folder or a SKILL.md"
"""What a PATH given to the skill commands may be."""
Origin = Literal["explicit", "settings", "project", "user"]


@dataclass(frozen=True)
class SkillRoot:
    """A place to look for skills, and why it is searched."""

    path: Path
    origin: Origin

    @property
    def searched_fully(self) -> bool:
        """Paths a person named are searched fully; default roots skip hidden folders."""
        return self.origin in ("explicit", "settings")


@dataclass
class SkillSet:
    """The skills of a set of roots: the graph of the winners, and every finding on the way.

    `diagnostics` holds what reading and discovery found (parse errors, shadowed names, loops);
    lint rules add their own on top. `files` counts every SKILL.md found, shadowed and
    unreadable ones included.
    """

    graph: SkillGraph
    diagnostics: list[Diagnostic]
    files: int
    roots: tuple[SkillRoot, ...]
    shadowed: list[Skill] = field(default_factory=list)
    found_in: dict[str, SkillRoot] = field(default_factory=dict)
    """The root each skill of the graph came from, by name."""

    def by_root(self) -> list[tuple[SkillRoot, list[str]]]:
        """Each root that gave skills, in discovery order, with their names."""
        names: dict[SkillRoot, list[str]] = {}
        for name, root in sorted(self.found_in.items()):
            names.setdefault(root, []).append(name)
        return [(root, names[root]) for root in self.roots if root in names]

    def nothing_found(self) -> str | None:
        """What to tell the user when no SKILL.md was found: where discovery looked."""
        if self.files:
            return None
        return "no skills found in " + ", ".join(str(root.path) for root in self.roots)

    @cached_property
    def _by_skill(self) -> dict[str, list[Diagnostic]]:
        index: dict[str, list[Diagnostic]] = {}
        for diagnostic in self.diagnostics:
            index.setdefault(diagnostic.skill or "", []).append(diagnostic)
        return index

    def diagnostics_for(self, name: str) -> list[Diagnostic]:
        """The findings made while reading the skill called `name` (and its shadowed twins)."""
        return self._by_skill.get(name, [])


def project_roots(
    project_root: Path,
    settings: Settings | None = None,
    extra: Iterable[Path] = (),
    cwd: Path | None = None,
) -> list[SkillRoot]:
    """The roots searched for a project, in discovery order. `.agents/skills` is looked for in
    the working folder `cwd` and each folder above it up to the project root, as pi does (but
    for the home folder's, which is the user's root); Claude Code's `.claude/skills` and
    `~/.claude/skills` come last (`skills.claude: false` leaves them out)."""
    settings = settings or project_settings(project_root)
    home = Path.home()
    roots = [
        *(SkillRoot(Path(p), "explicit") for p in extra),
        *(SkillRoot(p, "settings") for p in settings.skill_paths()),
        SkillRoot(project_root / ".pi" / "skills", "project"),
        *(
            SkillRoot(folder / ".agents" / "skills", "project")
            for folder in _up_to(cwd, project_root)
            if folder != home.resolve()  # ~/.agents/skills is the user's, below (as in pi)
        ),
        SkillRoot(agent_dir() / "skills", "user"),
        SkillRoot(home / ".agents" / "skills", "user"),
    ]
    if settings.get("skills.claude", True) is not False:
        roots += [
            SkillRoot(project_root / ".claude" / "skills", "project"),
            SkillRoot(home / ".claude" / "skills", "user"),
        ]
    return roots


def _up_to(cwd: Path | None, project_root: Path) -> list[Path]:
    """`cwd` and the folders above it up to `project_root`; just the root when `cwd` is not
    inside it."""
    start = (cwd or project_root).resolve()
    root = project_root.resolve()
    if start != root and root not in start.parents:
        return [project_root]
    return [start, *(p for p in start.parents if root in p.parents or p == root)]


def load_project_skills(
    project_root: Path | None = None,
    extra: Iterable[Path] = (),
    *,
    use_cache: bool = True,
    cwd: Path | None = None,
) -> SkillSet:
    """The project's skills: the one call the runtime, enforcer, TUI and sub-agents use.

    `project_root` defaults to the project around the current directory; `extra` are explicit
    paths searched before the configured ones. Raises WorkbenchError for unreadable settings and
    UsageError for an explicit path that does not exist.
    """
    here = Path.cwd() if project_root is None and cwd is None else cwd
    root = project_root or find_project_root(Path.cwd())
    settings = project_settings(root)
    roots = project_roots(root, settings, extra, here)
    return load_skills(roots, use_cache=use_cache, filters=settings.skill_filters())


def load_paths(paths: Sequence[Path], *, use_cache: bool = True) -> SkillSet:
    """The skills under `paths` (each searched fully), or the project's when none is given: what
    `workbench lint [PATH ...]` and `workbench graph [PATH ...]` look at."""
    if not paths:
        return load_project_skills(use_cache=use_cache)
    roots = [SkillRoot(path, "explicit") for path in paths]
    return load_skills(roots, use_cache=use_cache, named=True)


def load_skills(
    roots: Sequence[SkillRoot],
    *,
    use_cache: bool = True,
    filters: Sequence[SkillFilter] = (),
    named: bool = False,
) -> SkillSet:
    """Discover and parse the skills under `roots`; the first skill of a name wins. Settings'
    `filters` (`!glob`, `+path`, `-path`) leave skills out or bring them back. `named`: the
    roots are paths the user named, so a folder with no SKILL.md in or below it is an error."""
    walked: list[str] = []
    findings: list[Diagnostic] = []
    files: list[_Found] = []
    root_of: dict[str, SkillRoot] = {}
    seen: set[object] = set()
    for root in roots:
        if root.origin == "explicit":
            _check_explicit(root.path)
        path = root.path.absolute()
        if path.exists():
            walked.append(str(path))
            under = _skill_files(str(path), root.searched_fully, findings)
            if not under and named and path.is_dir():
                misnamed = [f.path for f in findings if f.rule == "skill-file-case"]
                if misnamed:
                    raise UsageError(
                        f"{misnamed[0]}: the file is named {misnamed[0].name}, not {SKILL_FILE}",
                        f"rename it: mv {misnamed[0]} {misnamed[0].with_name(SKILL_FILE)}",
                    )
                raise UsageError(
                    f"{root.path / SKILL_FILE}: no such file, and no skill folder below it",
                    f"PATH may be {PATH_KINDS}",
                )
            for found in under:
                key = _identity(found)
                if filters and not enabled(found[0], filters):
                    continue
                if key not in seen:  # one file under two roots, or two links to it, counts once
                    seen.add(key)
                    files.append(found)
                    root_of[found[0]] = root
        elif root.origin == "settings":
            findings.append(_missing_setting(path))
    cache = ParseCache.for_roots(walked) if use_cache else ParseCache(None)
    results = [_parse(path, file_stat, cache) for path, file_stat in files]
    cache.save()
    winners: dict[str, Skill] = {}
    found_in: dict[str, SkillRoot] = {}
    shadowed: list[Skill] = []
    diagnostics: list[Diagnostic] = list(findings)
    for (skill, problems), (file_path, _) in zip(results, files, strict=True):
        diagnostics.extend(problems)
        if skill is None:
            continue
        first = winners.setdefault(skill.name, skill)
        if first is not skill:
            shadowed.append(skill)
            overrides = found_in[skill.name].origin != root_of[file_path].origin
            diagnostics.append(_shadowed(skill, first, overrides))
        else:
            found_in[skill.name] = root_of[file_path]
    graph = SkillGraph(winners.values())
    return SkillSet(graph, diagnostics, len(files), tuple(roots), shadowed, found_in)


def _check_explicit(path: Path) -> None:
    """Raise UsageError unless `path` is a folder or a SKILL.md (any case): any other file would
    be read as a skill and reported as one with no frontmatter."""
    if not path.exists():
        raise UsageError(f"{path}: no such file or directory")
    if not path.is_dir() and path.name.lower() != SKILL_FILE.lower():
        raise UsageError(f"{path}: not a {SKILL_FILE}", f"PATH may be {PATH_KINDS}")


_Found = tuple[str, os.stat_result | None]
"""A SKILL.md path, with its stat when it is a regular file."""


def _parse(path: str, file_stat: os.stat_result | None, cache: ParseCache) -> ParseResult:
    if file_stat is not None:
        cached = cache.get(path, file_stat.st_size, file_stat.st_mtime_ns)
        if cached is not None:
            return cached
    # the parser (and its regexes) loads only when a file is not in the cache
    from workbench.skills.parse import parse_skill

    if file_stat is None:
        return parse_skill(path)  # reports why the file cannot be read
    key = (path, file_stat.st_size, file_stat.st_mtime_ns)
    result = parse_skill(path)
    cache.put(*key, result)
    return result


def _probe(path: str) -> tuple[bool, os.stat_result | None]:
    """Whether a skill file is at `path`, and its stat when it is a regular file. A FIFO or a
    link loop counts as a skill file without a stat, so that the parser reports it."""
    try:
        result = os.stat(path)  # noqa: PTH116 - once per folder: plain strings are faster
    except OSError as exc:
        return exc.errno == errno.ELOOP, None
    if stat.S_ISREG(result.st_mode):
        return True, result
    return not stat.S_ISDIR(result.st_mode), None


def _skill_files(root: str, fully: bool, findings: list[Diagnostic]) -> list[_Found]:
    """Every SKILL.md under `root` (a SKILL.md, a skill folder or a folder of skills), depth
    first in name order. A folder is first asked for its SKILL.md directly, which also gives
    the stat the cache needs; only folders without one are listed."""
    if not Path(root).is_dir():
        return [(root, _probe(root)[1])]
    found: list[_Found] = []
    real_root = os.path.realpath(root)
    seen = {real_root}
    stack = [(root, real_root)]
    ignore = IgnoreRules(root)
    while stack:
        folder, real = stack.pop()
        skill_file = folder + os.sep + SKILL_FILE
        is_skill, file_stat = _probe(skill_file)
        if is_skill:
            found.append((skill_file, file_stat))
            continue
        try:
            with os.scandir(folder) as scan:
                entries = sorted(scan, key=lambda e: e.name)
        except OSError:
            continue  # an unreadable folder holds no skills we could load
        if any(e.name == SKILL_FILE and e.is_symlink() for e in entries):
            found.append((skill_file, None))  # a dangling link: the parser says so
            continue
        misnamed = [e.name for e in entries if e.name.lower() == SKILL_FILE.lower()]
        if misnamed:
            findings.append(_misnamed(folder + os.sep + misnamed[0]))
        if held := [e.name for e in entries if e.name in IGNORE_FILES]:
            ignore.add(folder, held)  # it governs the folders below this one
        children = []
        for entry in entries:
            name = entry.name
            if name == ".git" or (not fully and (name[0] == "." or name == "node_modules")):
                continue
            child = _child_folder(entry, real, findings)
            if child is not None and child[1] not in seen and not ignore.ignores(child[0]):
                seen.add(child[1])
                children.append(child)
        stack.extend(reversed(children))
    return found


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _child_folder(
    entry: os.DirEntry[str], parent_real: str, findings: list[Diagnostic]
) -> tuple[str, str] | None:
    """(path, real path) of a subfolder to search, or None for files, loops and broken links."""
    if not entry.is_symlink():
        return (entry.path, parent_real + os.sep + entry.name) if _is_dir(entry) else None
    try:
        entry.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            findings.append(_loop(entry.path, "the link resolves to itself"))
        return None
    if not entry.is_dir():
        return None
    target = os.path.realpath(entry.path)
    if parent_real == target or parent_real.startswith(target + os.sep):
        findings.append(_loop(entry.path, f"the link points back at {target}, which holds it"))
        return None
    return entry.path, target


def _loop(path: str, why: str) -> Diagnostic:
    return finding("symlink-loop", Path(path), 1, f"folder link skipped: {why}")


def _missing_setting(path: Path) -> Diagnostic:
    return finding(
        "skill-path-missing",
        path,
        1,
        "a skills path from settings does not exist",
        "fix `skills.paths` in .pi/settings.json (or ~/.pi/agent/settings.json)",
    )


def _misnamed(path: str) -> Diagnostic:
    name = os.path.basename(path)  # noqa: PTH119
    return finding(
        "skill-file-case",
        Path(path),
        1,
        f"`{name}` is not loaded: the spec names the file `{SKILL_FILE}`",
        f"rename it to {SKILL_FILE}",
    )


def _identity(found: _Found) -> object:
    """What makes two found files one: the file itself (device and inode), else its path."""
    path, file_stat = found
    return (file_stat.st_dev, file_stat.st_ino) if file_stat is not None else path


def _shadowed(skill: Skill, winner: Skill, overrides: bool) -> Diagnostic:
    """Two skills of one name: a deliberate override when they come from roots of different
    kinds (a project's skill over the user's), a mistake when from roots of one kind."""
    if overrides:
        return finding(
            "name-shadowed",
            skill.path,
            skill.line_of("name"),
            f"`{skill.name}` is overridden by {shown(winner.path)}, which is found first",
            "nothing to do if that is what you meant; rename one to use both",
            skill.name,
        )
    return finding(
        "name-duplicate",
        skill.path,
        skill.line_of("name"),
        f"`{skill.name}` is also the name of {shown(winner.path)}, which is found first and wins",
        "rename one of the two skills",
        skill.name,
    )


def shown(path: Path | str, cwd: str | None = None) -> str:
    """`path` relative to the current directory (or `cwd`) when it lies below it, else
    absolute."""
    text = str(path)
    cwd = cwd or os.getcwd()  # noqa: PTH109 - a string, no Path
    if text.startswith(cwd + os.sep):
        return text[len(cwd) + 1 :]
    return text
