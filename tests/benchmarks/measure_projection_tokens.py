"""Real token counts of the projection levels and of the system-prompt skills section.

Run: `python tests/benchmarks/measure_projection_tokens.py [CORPORA_DIR]`

Counts each skill's summary, core and full projection with two real tokenizers (tiktoken's
cl100k_base and o200k_base, read offline from the encodings litellm ships) next to the cheap
estimate that sizes the levels, over the example graph (`skills/`) and each corpus folder. Then the
skills section of the system prompt for each set, with the upper bound its budget is checked
by. Not part of the test run.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CORPORA = REPO.parent / "shared" / "corpora"


def _use_bundled_encodings() -> None:
    """Point tiktoken at litellm's bundled encodings without importing litellm."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("litellm is not installed: its bundled tiktoken encodings are needed")
    folder = Path(spec.submodule_search_locations[0]) / "litellm_core_utils" / "tokenizers"
    os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "corpora",
        nargs="?",
        type=Path,
        default=CORPORA,
        help=f"a folder of skill corpora (default: {CORPORA})",
    )
    corpora = parser.parse_args().corpora
    _use_bundled_encodings()
    import tiktoken

    from workbench.enforcer.topology import render
    from workbench.skills.discover import SkillRoot, load_skills
    from workbench.skills.projection import LEVELS, estimate_tokens, project, token_ceiling

    encodings = {name: tiktoken.get_encoding(name) for name in ("cl100k_base", "o200k_base")}
    sets = {"example (skills/)": REPO / "skills"}
    if corpora.is_dir():
        sets |= {p.name: p for p in sorted(corpora.iterdir()) if p.is_dir()}
        sets["all corpora"] = corpora
    else:
        print(f"no corpora at {corpora}: measuring the example graph only", file=sys.stderr)
    print(
        "level    set                                  skills  cl100k mean/median/max"
        "   o200k mean   estimate mean  estimate/cl100k"
    )
    for label, folder in sets.items():
        graph = load_skills([SkillRoot(folder, "explicit")], use_cache=False).graph
        skills = list(graph.skills.values())
        if not skills:
            continue
        for level in LEVELS:
            texts = [project(s, level) for s in skills]
            real = [len(encodings["cl100k_base"].encode(t)) for t in texts]
            other = [len(encodings["o200k_base"].encode(t)) for t in texts]
            guess = [estimate_tokens(t) for t in texts]
            ratio = sum(guess) / max(1, sum(real))
            print(
                f"{level:<8} {label:<36} {len(skills):>6}  "
                f"{statistics.mean(real):>6.0f}/{statistics.median(real):>4.0f}/{max(real):>6}"
                f"   {statistics.mean(other):>10.0f}   {statistics.mean(guess):>13.0f}"
                f"  {ratio:>15.2f}"
            )
        section = render(graph, lambda s: str(s.path))
        tokens = len(encodings["cl100k_base"].encode(section))
        print(
            f"prompt   {label:<36} {len(skills):>6}  section {len(section.encode()):>5} bytes, "
            f"{tokens} cl100k tokens (budget check {token_ceiling(section)}); "
            f"pi's flat list ~{272 * len(skills):,} bytes"
        )


if __name__ == "__main__":
    main()
