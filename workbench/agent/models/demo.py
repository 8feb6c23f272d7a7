"""`demo`: the offline model a newcomer meets when no model is configured and no key is set.

It shows the whole app working without an LLM: it picks the compound skill that fits the prompt,
reads it through the real read tool, then the best-fitting molecule it delegates to, then that
molecule's atoms, and answers with what it found. Every reply says it comes from the offline demo.
Like a careful model it never reads a skill file again whose text is already in its context (read
for an earlier prompt of this branch): it says it has it and reads only what the new prompt still
needs. It decides each step from the conversation alone, so it survives steering, aborts and
restarts.
Side requests get mechanical answers: a goal-first summary of the user's requests and the tool
calls, and a commit message drafted from the file list.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from workbench.agent.models.client import (
    Delta,
    Finish,
    ModelInfo,
    ModelRequest,
    TextDelta,
    ToolCallDelta,
)
from workbench.messages import Message
from workbench.skills.graph import SkillGraph
from workbench.skills.model import Skill

NAME = "demo"
LABEL = "(offline demo)"
HOW_TO_CONFIGURE = (
    "This reply comes from workbench's offline demo model, which follows the skill graph without "
    "an LLM. For real answers pick a model with `--model` (any litellm model string) or set a "
    "provider key such as ANTHROPIC_API_KEY or OPENAI_API_KEY."
)
WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return {w for w in WORD.findall(text.lower()) if len(w) > 2}


def _fit(skill: Skill, prompt_words: set[str]) -> int:
    return len(prompt_words & _words(f"{skill.name.replace('-', ' ')} {skill.description}"))


def _best(skills: list[Skill], prompt_words: set[str]) -> Skill | None:
    """The skill sharing most words with the prompt (the first by name on a tie)."""
    return max(skills, key=lambda s: _fit(s, prompt_words), default=None)


def _first_paragraph(text: str) -> str:
    """The opening prose of a SKILL.md as the read tool returned it (frontmatter skipped)."""
    body = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.DOTALL)
    for block in re.split(r"\n\s*\n", body):
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        prose = " ".join(line for line in lines if not line.startswith(("#", "[", "|")))
        if prose:
            return prose[:240] + ("…" if len(prose) > 240 else "")
    return "(no description in the file)"


def _reads(messages: list[Message]) -> dict[str, Message | None]:
    """Each path the read tool was called with, and its result (None while it has none)."""
    results = {m.tool_call_id: m for m in messages if m.role == "tool_result"}
    return {
        str(c.arguments.get("path")): results.get(c.id)
        for m in messages
        for c in m.tool_calls
        if c.name == "read"
    }


def _read_ok(result: Message | None) -> bool:
    """Whether a read delivered the file (not skipped, refused or failed)."""
    return result is not None and not result.is_error


def _names(skills: list[Skill]) -> str:
    return ", ".join(f"`{s.name}`" for s in skills)


class DemoModel:
    """Follows compound -> molecule -> atoms with read calls, then summarises what it read."""

    def __init__(
        self, skills: Callable[[], SkillGraph], folder: Callable[[], Path], pace: float = 0.0
    ) -> None:
        """`folder` is where the tools run now (it moves to a fork's worktree); each reply
        streams over `pace` seconds, so that steering and Esc can be tried on it."""
        self.skills = skills
        self.folder = folder
        self.pace = pace
        self.info = ModelInfo(name=NAME, offline=True)

    def _path(self, skill: Skill) -> str:
        try:
            return str(skill.path.relative_to(self.folder()))
        except ValueError:
            return str(skill.path)

    def _plan(self, prompt: str) -> list[list[Skill]]:
        """The reads to make, step by step: [compound], [molecule], [atoms...]."""
        words = _words(prompt)
        graph = self.skills()
        compound = _best(graph.layered("compound"), words)
        if compound is None:
            return []
        steps = [[compound]]
        molecules = [s for n in graph.children(compound.name) if (s := graph.get(n)) is not None]
        molecule = _best([m for m in molecules if m.layer == "molecule"], words)
        if molecule is not None:
            steps.append([molecule])
            atoms = [graph.get(n) for n in graph.children(molecule.name)]
            found = [a for a in atoms if a is not None and a.layer == "atom"]
            if found:
                steps.append(found)
        return steps

    def _reply(self, messages: list[Message]) -> tuple[str, list[str]]:
        """The text and the paths to read next, from the conversation it is given: the reads
        since the last prompt, and the skills it already read for earlier ones."""
        start = max((i for i, m in enumerate(messages) if m.role == "user"), default=-1)
        if start < 0:
            return f"{LABEL} Ask me something.\n\n{HOW_TO_CONFIGURE}", []
        prompt = messages[start].text
        had = {
            path: result for path, result in _reads(messages[:start]).items() if _read_ok(result)
        }
        reads = _reads(messages[start + 1 :])
        steps = self._plan(prompt)
        if not steps:
            return (
                f"{LABEL} I found no compound skills to follow here, so there is nothing to "
                f"show yet. Add skills under .pi/skills/ (see docs/skills.md).\n\n"
                f"{HOW_TO_CONFIGURE}",
                [],
            )
        for step in steps:
            todo = [s for s in step if self._path(s) not in reads and self._path(s) not in had]
            if todo:
                had_note = self._already_had(steps, had) if not reads else ""
                noun = "skill" if len(todo) == 1 else "skills"
                text = f"{LABEL} {had_note}Next, the {todo[0].layer} {noun} {_names(todo)}."
                return text, [self._path(s) for s in todo]
        return self._answer(prompt, steps, reads, had), []

    def _already_had(self, steps: list[list[Skill]], had: dict[str, Message | None]) -> str:
        """The skills of this plan read for an earlier prompt, which are not read again."""
        known = [s for step in steps for s in step if self._path(s) in had]
        if not known:
            return ""
        them = "them" if len(known) > 1 else "it"
        return f"I already have {_names(known)} from earlier, so I do not read {them} again. "

    def _answer(
        self,
        prompt: str,
        steps: list[list[Skill]],
        reads: dict[str, Message | None],
        had: dict[str, Message | None],
    ) -> str:
        lines = [f"{LABEL} For “{prompt.strip()[:80]}”, I followed the skill graph:", ""]
        for step in steps:
            for skill in step:
                path = self._path(skill)
                result = reads.get(path) or had.get(path)
                if result is None or result.is_error:
                    problem = result.text.splitlines()[0] if result else "not read"
                    found = f"could not read it: {problem}"
                else:
                    found = _first_paragraph(result.text)
                earlier = " (read earlier)" if path in had and path not in reads else ""
                lines.append(f"- **{skill.layer}** `{skill.name}`{earlier}: {found}")
        return "\n".join([*lines, "", HOW_TO_CONFIGURE])

    def _summary(self, request_text: str) -> str:
        """A mechanical goal-first summary of the serialised conversation (there is no LLM to
        write one): the previous summary's goals and every user request, then the tool calls."""
        previous = re.search(r"<previous-summary>\n## Goal\n(.*?)\n\n", request_text, re.DOTALL)
        goals = previous.group(1).splitlines() if previous else []
        goals += [g for g in re.findall(r"^\[User\]: (.*)$", request_text, re.M) if g not in goals]
        done = re.findall(r"^\[Tool call (\w+)\]: (.*)$", request_text, re.M)
        return "\n".join(
            [
                "## Goal",
                *(goals or ["(none)"]),
                "",
                "## Progress",
                "### Done",
                *(f"- [x] {name} {args}" for name, args in done),
            ]
        )

    def _commit_message(self, request_text: str) -> str:
        """A commit message drafted mechanically from the request's file list (`added: PATH`) and
        the user's requests (`USER: ...`), as the JSON the request asks for, saying it was not
        verified."""
        files = re.findall(r"^(added|modified|deleted): (.+)$", request_text, re.M)
        asks = re.findall(r"^USER: (.+)$", request_text, re.M)
        kinds = {change for change, _ in files}
        only = kinds.pop() if len(kinds) == 1 else "modified"
        verb = {"added": "Add", "deleted": "Delete"}.get(only, "Update")
        names = [Path(path).name for _, path in files]
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        draft = {
            "subject": f"{verb} {shown or 'files'}",
            "purpose": f"Asked for: {asks[-1]}" if asks else "No request was recorded.",
            "changes": [f"{change} {path}" for change, path in files],
            "result": f"{LABEL} drafted from the file list; nothing was verified.",
        }
        return json.dumps(draft, ensure_ascii=False)

    async def stream(self, request: ModelRequest) -> AsyncIterator[Delta]:
        paths: list[str]
        if request.purpose == "commit_message":
            text, paths = self._commit_message(request.messages[-1].text), []
        elif request.purpose == "summary":
            text, paths = self._summary(request.messages[-1].text), []
        else:
            text, paths = self._reply(request.messages)
        pieces = re.findall(r"\s*\S+\s*|\s+", text)
        delay = self.pace / len(pieces) if pieces and request.purpose == "turn" else 0.0
        for piece in pieces:
            if delay:
                await asyncio.sleep(delay)
            yield TextDelta(piece)
        for index, path in enumerate(paths):
            yield ToolCallDelta(index, name="read", arguments=json.dumps({"path": path}))
        yield Finish("tool_calls" if paths else "stop")
