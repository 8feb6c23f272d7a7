"""Pure skill logic: parse SKILL.md, discover skill folders, build the graph, lint, project."""
