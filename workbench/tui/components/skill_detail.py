"""One skill, read the way the model reads it: its summary, core or full projection, with its
place in the graph and its lint findings. The summary and core are shown verbatim and wrapped
between words (a code block would cut them at the edge, mid-word)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown, Static

from workbench.skills.graph import SkillGraph
from workbench.skills.model import Diagnostic
from workbench.skills.projection import Level, project
from workbench.text import count_of
from workbench.tui import palette

LEVELS = ("summary", "core", "full")


class SkillDetail(ModalScreen[None]):
    """1/2/3 switch projection; Esc or q closes."""

    DEFAULT_CSS = """
    SkillDetail { align: center middle; }
    SkillDetail > Vertical {
        width: 90%; height: 90%; border: thick $primary; background: $surface; padding: 0 1;
    }
    SkillDetail .facts { height: auto; margin-bottom: 1; }
    SkillDetail .findings { height: auto; margin-bottom: 1; }
    SkillDetail .footer { color: $text-muted; height: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "level('summary')", "Summary", show=False),
        Binding("2", "level('core')", "Core", show=False),
        Binding("3", "level('full')", "Full", show=False),
        Binding("escape,q", "close", "Close", show=False),
    ]

    def __init__(
        self, graph: SkillGraph, name: str, findings: list[Diagnostic], last_eval: str = ""
    ) -> None:
        """`last_eval`: the summary of the skill's last eval (`workbench eval`), if any."""
        super().__init__()
        self.graph, self.skill_name, self.findings = graph, name, findings
        self.last_eval = last_eval
        self.level: Level = "core"

    def compose(self) -> ComposeResult:
        skill = self.graph.get(self.skill_name)
        assert skill is not None
        facts = Text()
        facts.append(
            f"{skill.layer or 'unlayered'}", palette.LAYER_COLOURS.get(skill.layer or "", "")
        )
        facts.append("  standalone" if skill.standalone else "")
        facts.append(f"\n{skill.path}", palette.DIM)
        if skill.delegates_to:
            facts.append("\ndelegates to: " + ", ".join(skill.delegates_to))
        callers = sorted(self.graph.delegators(self.skill_name))
        if callers:
            facts.append("\nused by: " + ", ".join(callers))
        with Vertical() as frame:
            frame.border_title = self.skill_name
            yield Static(facts, classes="facts")
            yield Static(self._findings(), classes="findings")
            if self.last_eval:
                yield Static(Text(self.last_eval), classes="findings", id="last-eval")
            with VerticalScroll():
                yield Static(id="projected")  # summary and core: verbatim, wrapped at words
                yield Markdown(id="projection")  # full: the Markdown it is
            yield Static("1 summary · 2 core · 3 full · Esc closes", classes="footer")

    def _findings(self) -> Text:
        if not self.findings:
            return Text("lint: no findings", palette.SUCCESS)
        text = Text(f"lint: {count_of(len(self.findings), 'finding')}\n", palette.WARNING)
        for finding in self.findings:
            style = palette.ERROR if finding.severity == "error" else palette.WARNING
            text.append(f"  {finding.severity} {finding.rule}", style)
            text.append(f" line {finding.line}: {finding.message}\n")
        return text

    async def on_mount(self) -> None:
        await self.action_level(self.level)
        self.query_one(VerticalScroll).focus()

    async def action_level(self, level: Level) -> None:
        skill = self.graph.get(self.skill_name)
        assert skill is not None
        self.level = level
        text = project(skill, level)
        full = level == "full"
        projected = self.query_one("#projected", Static)
        projected.update(Text.assemble((level, "bold"), "\n\n", text))
        projected.display = not full
        markdown = self.query_one("#projection", Markdown)
        await markdown.update(text if full else "")
        markdown.display = full
        self.query_one(".footer", Static).update(
            " · ".join(
                f"[b]{i + 1} {name}[/b]" if name == level else f"{i + 1} {name}"
                for i, name in enumerate(LEVELS)
            )
            + " · Esc closes"
        )

    def action_close(self) -> None:
        self.dismiss(None)
