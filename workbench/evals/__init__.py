"""Evals: whether a skill helps a model, measured on the sweep engine (design.md §5b).

`configurations` names the ways the skill is offered (with, without, an older version, each
enforcer mode, a flat catalog, ablations); `workspace` makes a run's worktree hold that;
`engine` plans the eval as one sweep, runs it and grades each run (`grading`: checks and a grader
model; `uptake`: what the run loaded); `results` holds the report and its statistics,
`triggers` the description's precision and recall; `text` and `html_report` render it, and
`saved` keeps each skill's last report for the app. Between sweeps (which it uses) and the
front ends.
"""
