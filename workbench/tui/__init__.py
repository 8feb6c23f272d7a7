"""The Textual app: the only part of workbench that imports Textual."""
