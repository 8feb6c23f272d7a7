"""`workbench lint [PATH ...]`: check skill folders and report findings.

One line per finding, `path:line: severity rule-id message`, an indented hint where one helps,
and a last line `N skills, E errors, W warnings` (plus, on stderr, where it looked when it found
no skill). Exit 0 without errors, 1 with errors (or with warnings under --strict); bad arguments,
missing paths and files that are not a SKILL.md exit 2 through UsageError.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys

from workbench.commands._skill_paths import add_skill_path_arguments, finding_text
from workbench.skills.discover import load_paths
from workbench.skills.lint import lint
from workbench.skills.model import Diagnostic
from workbench.text import count_of


def configure(parser: argparse.ArgumentParser) -> None:
    add_skill_path_arguments(parser)
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--strict", action="store_true", help="fail on warnings too")
    parser.add_argument(
        "--select", action="append", metavar="IDS", help="report only these rule ids (a,b,...)"
    )
    parser.add_argument(
        "--ignore", action="append", default=[], metavar="IDS", help="skip these rule ids (a,b,...)"
    )


def _ids(values: list[str] | None) -> list[str] | None:
    if values is None:
        return None
    return [rule.strip() for value in values for rule in value.split(",") if rule.strip()]


def run(args: argparse.Namespace) -> int:
    gc.disable()  # a short run that frees nothing cyclic: collecting would only cost time
    skills = load_paths(args.paths, use_cache=not args.no_cache)
    found = lint(skills, select=_ids(args.select), ignore=_ids(args.ignore) or ())
    errors = sum(d.severity == "error" for d in found)
    warnings = len(found) - errors
    if args.format == "json":
        import json

        report = {
            "skills": skills.files,
            "errors": errors,
            "warnings": warnings,
            "diagnostics": [_as_dict(d) for d in found],
        }
        sys.stdout.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    else:
        cwd = os.getcwd()  # noqa: PTH109 - once, not once per finding
        sys.stdout.write("".join(finding_text(d, cwd) for d in found))
        sys.stdout.write(f"{count_of(skills.files, 'skill')}, {count_of(errors, 'error')}, ")
        sys.stdout.write(f"{count_of(warnings, 'warning')}\n")
    if nothing_found := skills.nothing_found():
        print(f"workbench: {nothing_found}", file=sys.stderr)
    return 1 if errors or (args.strict and warnings) else 0


def _as_dict(d: Diagnostic) -> dict[str, object]:
    return {
        "rule": d.rule,
        "severity": d.severity,
        "skill": d.skill,
        "path": str(d.path),
        "line": d.line,
        "message": d.message,
        "hint": d.hint,
    }
