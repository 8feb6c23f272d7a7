"""The skills section of the system prompt at thousands of skills: what a session pays for it.

Run: `python tests/benchmarks/bench_skill_section.py [--runs N] [--skills N]`

Times building one session's skill view (`SkillView`: the load checker, the section with the
enforcer's tools and the one without, which decides whether `prime_query` is offered) for three
graphs of about `--skills` skills held in memory: layered (compounds of 3 molecules of 3 atoms),
unlayered (pi's `<available_skills>` listing) and both. The section keeps about 6.4 KB whatever
the size: building only what fits is the point (goal: well under 0.1 s at 5,000 skills).
Prints the median and the spread of `--runs` builds, in milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from process_turns import unlayered_specs
from support.skill_trees import Spec, graph_in_memory, layered_specs

from workbench.config import Settings
from workbench.enforcer.reload import LiveSkills
from workbench.enforcer.skill_view import SkillView
from workbench.skills.discover import SkillSet
from workbench.skills.graph import SkillGraph


def graphs(root: Path, skills: int) -> dict[str, SkillGraph]:
    compounds = max(1, round(skills / 13))
    tools = {f"tool-{n}": Spec(description="x " * 50) for n in range(skills // 5)}
    return {
        "layered": graph_in_memory(root, layered_specs(compounds)),
        "unlayered": graph_in_memory(root, unlayered_specs(skills)),
        "mixed": graph_in_memory(root, {**layered_specs(compounds * 4 // 5), **tools}),
    }


def build_ms(graph: SkillGraph, root: Path) -> float:
    live = LiveSkills(lambda: SkillSet(graph, [], len(graph), ()))
    start = time.perf_counter()
    SkillView(live, Settings(root), root.parent)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="builds per graph (default: 9)")
    parser.add_argument("--skills", type=int, default=5000, help="skills a graph (default: 5000)")
    args = parser.parse_args()
    root = Path("/project/.pi/skills")
    print(f"{'graph':>10}  {'skills':>7}  {'median':>9}  {'min':>9}  {'max':>9}")
    for name, graph in graphs(root, args.skills).items():
        times = [build_ms(graph, root) for _ in range(args.runs)]
        print(
            f"{name:>10}  {len(graph):>7}  {statistics.median(times):>7.1f}ms"
            f"  {min(times):>7.1f}ms  {max(times):>7.1f}ms"
        )


if __name__ == "__main__":
    main()
