"""Pure skill logic: parse SKILL.md, discover skill folders, build the graph, lint, project.

May import `config`, `trust` and `errors` only: no agent, no session, no front end.
"""
