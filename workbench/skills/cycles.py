"""Delegation cycles, found over the graph's own index (no networkx on the lint path).

A graph whose every edge points down the layers has no cycle, which one pass proves; only
otherwise does Tarjan's algorithm run.
"""

from __future__ import annotations

from workbench.skills.graph import SkillGraph
from workbench.skills.model import LAYER_RANK


def find_cycles(graph: SkillGraph) -> list[list[str]]:
    """One cycle per strongly connected component of the delegation graph (Tarjan, iterative),
    each starting at its smallest name."""
    if not _has_edge_not_pointing_down(graph):
        return []  # every edge goes one layer down or more: no path can come back
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    cycles: list[list[str]] = []

    def successors(name: str) -> list[str]:
        return [t for t in graph.children(name) if t in graph and graph.skills[t].layer]

    for start in sorted(graph.skills):
        if start in index or graph.skills[start].layer is None:
            continue
        work = [(start, iter(successors(start)))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(successors(child))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph.children(node):
                    cycles.append(_cycle_in(graph, set(component)))
    return sorted(cycles)


def _has_edge_not_pointing_down(graph: SkillGraph) -> bool:
    skills = graph.skills
    for skill in skills.values():
        if skill.layer is None:
            continue
        rank = LAYER_RANK[skill.layer]
        for target in graph.children(skill.name):
            other = skills.get(target)
            if other is not None and other.layer and LAYER_RANK[other.layer] <= rank:
                return True
    return False


def _cycle_in(graph: SkillGraph, component: set[str]) -> list[str]:
    """A simple cycle through the smallest name of a strongly connected component."""
    first = min(component)
    parents: dict[str, str] = {}
    queue = [first]
    for name in queue:  # breadth first, so the cycle found is a shortest one
        for child in graph.children(name):
            if child == first:
                path = [name]
                while path[-1] != first:
                    path.append(parents[path[-1]])
                return path[::-1]
            if child in component and child not in parents:
                parents[child] = name
                queue.append(child)
    return [first]
