"""The load check: the indexed check against the seed's straightforward one, by graph size.

Run: `python tests/benchmarks/bench_enforcer.py`

The straightforward algorithm (seed 000, §3.5.4) filters the whole skill list for the delegating
skills of the layer above on every load; ours asks the graph's index (`parents_above`). Both are
timed on the same regular graphs (each compound owns 3 molecules, each molecule 3 atoms) for an
atom whose molecule is loaded (the common, allowed case) and for one whose molecule is not (a
violation, where ours also works out the suggestion). Goal: under 20 µs a check at 10,000 skills.
Also timed, for scale: the whole `tool_call` path of a read (path resolution included), the stat
check for changed files (before each run, and before a model call that follows a tool that may
have changed files: `bash`, a `write` or `edit` of a SKILL.md), and rendering the prompt's
topology.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from workbench.enforcer.detect import loads
from workbench.enforcer.reload import LiveSkills
from workbench.enforcer.state import LoadingState, LoadRecord
from workbench.enforcer.topology import render
from workbench.enforcer.verdict import Checker
from workbench.skills.discover import SkillSet
from workbench.skills.graph import SkillGraph
from workbench.skills.model import Skill


def regular_graph(root: Path, skills: int) -> SkillGraph:
    """About `skills` skills: compounds of 3 molecules of 3 atoms (13 skills a compound)."""
    made: list[Skill] = []
    for c in range(max(1, round(skills / 13))):
        molecules = [f"m{c}-{m}" for m in range(3)]
        made.append(
            Skill(
                f"c{c}",
                root / f"c{c}" / "SKILL.md",
                layer="compound",
                delegates_to=tuple(molecules),
            )
        )
        for molecule in molecules:
            atoms = [f"{molecule}-a{a}" for a in range(3)]
            made.append(
                Skill(
                    molecule,
                    root / molecule / "SKILL.md",
                    layer="molecule",
                    delegates_to=tuple(atoms),
                )
            )
            made += [Skill(a, root / a / "SKILL.md", layer="atom") for a in atoms]
    return SkillGraph(made)


def seed_check(
    skill_list: list[Skill], by_name: dict[str, Skill], target: str, loaded: set[str]
) -> bool:
    """The seed's validateTopDownLoading: filter every skill for the delegators above."""
    node = by_name.get(target)
    if node is None or node.layer == "compound" or node.standalone:
        return True
    above = "compound" if node.layer == "molecule" else "molecule"
    parents = [s for s in skill_list if s.layer == above and target in s.delegates_to]
    return any(p.name in loaded for p in parents)


def per_call(function: Callable[[], object], seconds: float = 0.3) -> float:
    """Microseconds per call, the best of 5 rounds of about `seconds` each."""
    runs = 1
    while True:
        start = time.perf_counter()
        for _ in range(runs):
            function()
        spent = time.perf_counter() - start
        if spent > seconds / 10:
            break
        runs *= 4
    runs = max(1, int(runs * seconds / 10 / spent * 10))
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(runs):
            function()
        best = min(best, (time.perf_counter() - start) / runs)
    return best * 1e6


def measure(root: Path, size: int) -> tuple[int, list[float]]:
    """The graph's size and the figures of one row of the table."""
    graph = regular_graph(root / str(size), size)
    for skill in graph.skills.values():  # real files, for path resolution and stats
        skill.path.parent.mkdir(parents=True, exist_ok=True)
        skill.path.write_text("---\nname: x\n---\n")
    skill_list = list(graph.skills.values())
    checker = Checker(graph, lambda s: str(s.path))
    state = LoadingState()
    last = max(s.name for s in graph.layered("compound"))
    molecule = graph.children(last)[0]
    atom, stray = graph.children(molecule)[0], graph.children(molecule)[1]
    for name, layer, via in ((last, "compound", None), (molecule, "molecule", last)):
        state.apply(LoadRecord(name, layer, "ok", "read", via=via))
    other = graph.children(graph.children("c0")[0])[0]
    ok_skill, bad_skill = graph.get(atom), graph.get(other)
    assert checker.check(ok_skill, state).ok and not checker.check(bad_skill, state).ok
    loaded = set(state.loaded)
    assert seed_check(skill_list, graph.skills, atom, loaded)
    assert not seed_check(skill_list, graph.skills, other, loaded)
    live = LiveSkills(lambda: SkillSet(graph, [], len(graph), ()))
    read_args = {"path": str(graph.get(stray).path)}
    return len(graph), [
        per_call(lambda: seed_check(skill_list, graph.skills, atom, loaded)),
        per_call(lambda: checker.check(ok_skill, state)),
        per_call(lambda: seed_check(skill_list, graph.skills, other, loaded)),
        per_call(lambda: checker.check(bad_skill, state)),
        per_call(lambda: checker.check(loads(graph, "read", read_args, root)[0].skill, state)),
        per_call(live.changed, seconds=0.5) / 1000,
        per_call(lambda: render(graph, lambda s: str(s.path)), seconds=0.5) / 1000,
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        type=int,
        nargs="*",
        default=[100, 1_000, 10_000],
        help="graph sizes to time, in skills (default: 100 1000 10000)",
    )
    args = parser.parse_args()
    print(
        f"{'skills':>7}  {'seed ok':>9}  {'ours ok':>8}  {'seed bad':>9}  {'ours bad':>9}"
        f"  {'read hook':>10}  {'stat check':>11}  {'topology':>9}"
    )
    with tempfile.TemporaryDirectory() as folder:
        for size in args.sizes:
            count, f = measure(Path(folder), size)
            print(
                f"{count:>7}  {f[0]:>7.1f}µs  {f[1]:>6.2f}µs  {f[2]:>7.1f}µs  {f[3]:>7.2f}µs  "
                f"{f[4]:>8.1f}µs  {f[5]:>9.2f}ms  {f[6]:>7.1f}ms"
            )


if __name__ == "__main__":
    main()
