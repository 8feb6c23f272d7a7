"""Project instructions: AGENTS.md (or CLAUDE.md) files, as users of pi and Claude Code expect.

Read from `~/.pi/agent/` first, then from the repository root down to the working folder, so the
most specific instructions come last. One file per folder: AGENTS.md, or CLAUDE.md when there is no
AGENTS.md (many projects keep one as a link to the other).

A project's file goes into the system prompt, so a folder the user just cloned must not be able to
put anything else there: a project file (or the link it is) must resolve inside the repository or
the user's own config folder, be UTF-8 text, and is cut at `MAX_BYTES`. Each file left out or cut
comes with a notice saying why.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass, field
from pathlib import Path

from workbench.config import agent_dir

NAMES = ("AGENTS.md", "CLAUDE.md")
MAX_BYTES = 64 * 1024
"""Instructions beyond this are cut: a context file is read into every request."""


@dataclass(frozen=True)
class ContextFile:
    path: Path
    text: str


@dataclass
class ContextFiles:
    """The files that go into the prompt, and a notice for each one left out or cut."""

    files: list[ContextFile] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


def _repository_root(cwd: Path) -> Path:
    """The nearest folder at or above `cwd` holding `.git`; `cwd` itself outside a repository."""
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return cwd


def _inside(path: Path, folders: tuple[Path, ...]) -> bool:
    return any(path == folder or folder in path.parents for folder in folders)


def _read(path: Path, allowed: tuple[Path, ...] | None, found: ContextFiles) -> ContextFile | None:
    """The file at `path` as text, or None with a notice; `allowed`: where a project's file
    must resolve (None for the user's own)."""
    real = path.resolve()
    if allowed is not None and not _inside(real, allowed):
        found.notices.append(f"{path} was not read: it leads outside the project (to {real})")
        return None
    try:
        with real.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        found.notices.append(f"{path} was not read: {exc.strerror or exc}")
        return None
    cut = len(data) > MAX_BYTES
    try:  # a cut may split a character: the decoder keeps the partial one back
        text = codecs.getincrementaldecoder("utf-8")().decode(data[:MAX_BYTES], final=not cut)
    except UnicodeDecodeError:
        text = "\0"
    if "\0" in text:
        found.notices.append(f"{path} was not read: it is not UTF-8 text")
        return None
    if cut:
        found.notices.append(f"{path} was cut to its first {MAX_BYTES // 1024} KiB")
    return ContextFile(path, text)


def _file_in(
    folder: Path, allowed: tuple[Path, ...] | None, found: ContextFiles
) -> ContextFile | None:
    for name in NAMES:
        path = folder / name
        if path.is_file():
            return _read(path, allowed, found)
    return None


def context_files(cwd: Path) -> ContextFiles:
    """The instruction files for a session in `cwd`, general first, most specific last."""
    cwd = cwd.resolve()
    root = _repository_root(cwd)
    chain = [cwd, *cwd.parents]
    project_folders = list(reversed(chain[: chain.index(root) + 1]))
    allowed = (root, agent_dir().resolve())
    found = ContextFiles()
    seen: set[Path] = set()
    for folder, limit in [(agent_dir(), None), *((f, allowed) for f in project_folders)]:
        file = _file_in(folder, limit, found)
        if file is not None and file.path.resolve() not in seen:
            seen.add(file.path.resolve())
            found.files.append(file)
    return found
