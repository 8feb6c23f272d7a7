"""The skill graph as a tree: compounds -> molecules -> atoms, live as the agent loads skills.

Each line shows the skill's layer (C/M/A), standalone atoms (◇, explained on the border while
the panel is not focused: the others make sense only under their molecule), loaded skills in
their layer's colour (●, or ◐ when only a part of it was read), the active compound (▶) and
violations in the error style with a count, the violations of sub-agents (reported in their
`subagent` results) included. The title counts skills, loaded ones and violations. Enter opens
a skill (projections and lint findings); `a` activates it for this branch, `d` deactivates it.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from workbench.agent.events import ToolExecutionEnd
from workbench.enforcer.events import SkillLoadEvent
from workbench.skills.graph import SkillGraph
from workbench.text import count_of
from workbench.tui import palette
from workbench.tui.components.typing import PANEL_HINT, TypingPanel
from workbench.tui.laid_out import SteadyScrollBars

if TYPE_CHECKING:
    from workbench.runtime.events import WorkbenchEvent


def child_violations(details: dict[str, Any] | None) -> list[str]:
    """The skills sub-agents loaded against the rules, from a `subagent` result's details."""
    results = ((details or {}).get("subagent") or {}).get("results") or []
    return [load["skill"] for child in results for load in child.get("violations") or []]


class SkillPanel(TypingPanel, SteadyScrollBars, Tree[str]):
    """See the module docstring. Node data is the skill's name (None for group headings)."""

    DEFAULT_CSS = """
    SkillPanel { border: round $primary 50%; padding: 0 1; }
    SkillPanel:focus { border: round $primary; }
    SkillPanel.-violations { border: round $error; }
    SkillPanel.-violations:focus { border: double $error; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open skill", show=False),
        Binding("alt+a", "activate(True)", "Activate", show=False),
        Binding("alt+d", "activate(False)", "Deactivate", show=False),
    ]
    KEYS_HINT = f"Enter open · Alt+A activate · Alt+D deactivate · {PANEL_HINT}"
    STANDALONE_HINT = "◇ standalone: may be read alone"

    def resting_hint(self) -> str:
        shown = any(skill.standalone for skill in self.graph.skills.values())
        return self.STANDALONE_HINT if shown else ""

    def show_focus(self, focused: bool) -> None:
        self._relabel(focused)

    class Opened(Message):
        def __init__(self, skill: str) -> None:
            super().__init__()
            self.skill = skill

    class ActivationRequested(Message):
        def __init__(self, skill: str, activate: bool) -> None:
            super().__init__()
            self.skill = skill
            self.activate = activate

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("skills", id=id)
        self.show_root = False
        self.auto_expand = False
        self.graph = SkillGraph([])
        self.loaded: dict[str, str | None] = {}
        self.partial: set[str] = set()
        """Loaded skills of which the model has seen only a part (a head, a limited read)."""
        self.active: str | None = None
        self.violations: Counter[str] = Counter()
        self.findings: Counter[str] = Counter()
        self._skill_nodes: dict[str, list[TreeNode[str]]] = {}
        self.border_title = "Skills · loading…"

    # -- the graph ------------------------------------------------------------------------------

    def show_graph(self, graph: SkillGraph, findings: Counter[str] | None = None) -> None:
        """Draw `graph`; `findings` counts lint findings per skill (shown in the detail view)."""
        self.graph, self.findings = graph, findings or Counter()
        self.clear()
        self._skill_nodes = {}
        reached: set[str] = set()
        for compound in graph.layered("compound"):
            self._add(self.root, compound.name, (), reached)
        unreached = [
            s
            for layer in ("molecule", "atom")
            for s in graph.layered(layer)
            if s.name not in reached
        ]
        unreached.sort(key=lambda s: bool(graph.delegators(s.name)))  # tops of subtrees first
        if unreached:
            group = self.root.add(Text("not reached from a compound", palette.DIM), expand=True)
            for skill in unreached:
                if skill.name not in reached:
                    self._add(group, skill.name, (), reached)
        if graph.unlayered():
            group = self.root.add(Text("unlayered", palette.DIM), expand=False)
            for skill in graph.unlayered():
                self._add(group, skill.name, (), reached)
        if not self.has_focus:
            self.border_subtitle = self.resting_hint()
        self._relabel()

    def _add(
        self, parent: TreeNode[str], name: str, path: tuple[str, ...], reached: set[str]
    ) -> None:
        reached.add(name)
        children = [c for c in self.graph.children(name) if c not in path]
        if children:
            node = parent.add("", data=name, expand=True)
            for child in children:
                self._add(node, child, (*path, name), reached)
        else:
            node = parent.add_leaf("", data=name)
        self._skill_nodes.setdefault(name, []).append(node)

    # -- the loading state ----------------------------------------------------------------------

    def sync(
        self,
        loaded: dict[str, str | None],
        active: str | None,
        violations: Counter[str],
        partial: set[str] | None = None,
    ) -> None:
        """Take the loading state of the current branch (after opening, navigating, forking)."""
        self.loaded, self.active, self.violations = dict(loaded), active, violations
        self.partial = set(partial or ())
        self._relabel()

    def on_workbench_event(self, event: WorkbenchEvent) -> None:
        match event:
            case ToolExecutionEnd():
                self.violations.update(child_violations(event.result.details))
                self._relabel()
            case SkillLoadEvent():
                self._loaded(event)

    def _loaded(self, event: SkillLoadEvent) -> None:
        if event.verdict != "ok":
            self.violations[event.skill] += 1
        if not event.blocked:
            if event.partial and event.skill not in self.loaded:
                self.partial.add(event.skill)
            elif not event.partial:
                self.partial.discard(event.skill)
            self.loaded[event.skill] = event.layer
            if event.layer == "compound":
                self.active = event.skill
        self._relabel()

    def label_of(self, name: str) -> Text:
        skill = self.graph.get(name)
        layer = skill.layer if skill else None
        colour = palette.LAYER_COLOURS.get(layer or "", "")
        text = Text()
        text.append("▶ " if name == self.active else "", f"bold {colour}")
        text.append(f"{palette.LAYER_LETTERS.get(layer or '', '·')} ", f"bold {colour}")
        loaded = name in self.loaded
        if skill is None:
            text.append(name, palette.DIM)
            text.append(" (missing)", palette.ERROR)
            return text
        text.append(name, f"bold {colour}" if loaded else "")
        if loaded:
            text.append(" ◐" if name in self.partial else " ●", colour)
        if skill.standalone:
            text.append(" ◇", palette.DIM)
        if self.violations[name]:
            text.stylize(palette.ERROR, 2)
            text.append(f" ⚠{self.violations[name]}", palette.ERROR)
        return text

    def _relabel(self, focused: bool | None = None) -> None:
        for name, nodes in self._skill_nodes.items():
            label = self.label_of(name)
            for node in nodes:
                node.set_label(label)
        marked = self.has_focus if focused is None else focused
        title = f"{'▶ ' if marked else ''}Skills · {len(self.graph)} · {len(self.loaded)} loaded"
        total = sum(self.violations.values())
        if total:
            title += f" · ⚠ {count_of(total, 'violation')}"
        self.border_title = title
        self.set_class(bool(total), "-violations")

    # -- keys -----------------------------------------------------------------------------------

    def _selected(self) -> str | None:
        node = self.cursor_node
        return node.data if node is not None else None

    def action_open(self) -> None:
        name = self._selected()
        if name is not None and name in self.graph:
            self.post_message(self.Opened(name))
        elif self.cursor_node is not None:
            self.cursor_node.toggle()

    def action_activate(self, activate: bool) -> None:
        name = self._selected()
        if name is not None and name in self.graph:
            self.post_message(self.ActivationRequested(name, activate))
