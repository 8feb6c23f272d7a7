"""Time `workbench lint` as a whole process on generated layered graphs and on the real corpora.

Run: `python tests/benchmarks/bench_lint.py [--runs 5] [--sizes 1000 10000]`

Cold means an empty parse cache (a fresh `XDG_CACHE_HOME`); warm means a second run that reuses
it. The files themselves are in the OS page cache in both cases. Goals on a 2-core machine:
10,000 skills in under 1.5 s cold and 0.4 s warm; the corpora (~1,500 skills) in under 0.5 s.
The load average is printed before and after each measurement: on a shared machine the figures
mean little without it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CORPORA = Path(__file__).resolve().parents[2].parent / "shared" / "corpora"
RULES = """
> **Rule 1: one question at a time.** Ask exactly one question per message, then wait.
>
> **Rule 2: options with a recommendation.** Offer 2-4 lettered options, one per line, mark the
> best with `(recommended)`, and end with a free-form choice:
>
> A) Go on (recommended)
> B) Stop here
> C) Other: type your own answer
"""
FILLER = (
    "Run the command, read its output, and write down what it says before going on. "
    "Report the exact error text when something fails; never guess at a cause.\n"
) * 8


def skill_text(name: str, layer: str, targets: list[str]) -> str:
    lines = ["---", f"name: {name}", f"description: The {name} skill, generated for timing."]
    lines += ["license: MIT", "metadata:", f"  layer: {layer}"]
    if targets:
        lines.append(f'  delegates-to: "{" ".join(targets)}"')
    if layer == "atom":
        lines.append('  standalone: "true"')
    lines.append("---")
    body = [f"# {name}", "", "## Purpose", "", FILLER]
    if targets:
        body += ["## Uses", ""] + [f"- `../{t}/SKILL.md`: step {i}" for i, t in enumerate(targets)]
        body += ["", "## Orchestration", RULES]
    body += ["## Steps", "", FILLER, "## Failure handling", "", FILLER]
    return "\n".join(lines + body) + "\n"


def generate(root: Path, total: int) -> None:
    """A layered graph of `total` skills that lints clean: 2% compounds, 14% molecules, the rest
    atoms; each compound uses 8 molecules and each molecule 7 atoms, every skill is used."""
    compounds = max(1, total // 50)
    molecules = max(1, compounds * 7)
    atoms = total - compounds - molecules
    names = {
        "compound": [f"compound-{i}" for i in range(compounds)],
        "molecule": [f"molecule-{i}" for i in range(molecules)],
        "atom": [f"atom-{i}" for i in range(atoms)],
    }
    for layer, below in (("compound", "molecule"), ("molecule", "atom"), ("atom", None)):
        for i, name in enumerate(names[layer]):
            targets: list[str] = []
            if below:
                pool = names[below]
                step = -(-len(pool) // len(names[layer]))  # ceiling: the blocks cover the pool
                targets = [pool[(i * step + k) % len(pool)] for k in range(min(10, step + 1))]
            folder = root / name
            folder.mkdir(parents=True)
            (folder / "SKILL.md").write_text(skill_text(name, layer, targets))


def run_lint(path: Path, cache: Path) -> tuple[float, str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "workbench", "lint", str(path)],
        capture_output=True,
        text=True,
        env=env,
    )
    elapsed = time.perf_counter() - start
    return elapsed, result.stdout.strip().splitlines()[-1]


def load_average() -> str:
    return " ".join(f"{load:.2f}" for load in os.getloadavg())


def measure(label: str, path: Path, runs: int, scratch: Path) -> None:
    before = load_average()
    cold, warm = [], []
    summary = ""
    for run in range(runs):
        cache = scratch / f"cache-{label}-{run}"
        seconds, summary = run_lint(path, cache)
        cold.append(seconds)
        warm.append(run_lint(path, cache)[0])
    print(
        f"{label:>16}: cold median {statistics.median(cold):.3f} s "
        f"(min {min(cold):.3f}), warm median {statistics.median(warm):.3f} s "
        f"(min {min(warm):.3f}) over {runs} runs  [{summary}]  "
        f"load average {before} -> {load_average()}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-lint-") as scratch_name:
        scratch = Path(scratch_name)
        for size in args.sizes:
            root = scratch / f"graph-{size}"
            generate(root, size)
            os.sync()  # let the writes settle, so that writeback does not run during the timing
            measure(f"{size} skills", root, args.runs, scratch)
        if CORPORA.is_dir():
            measure("corpora", CORPORA, args.runs, scratch)
        else:
            print(f"corpora: skipped, none at {CORPORA}")


if __name__ == "__main__":
    main()
