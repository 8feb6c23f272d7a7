"""`workbench eval`: a skill's evals run, graded and compared (docs/evals.md)."""
