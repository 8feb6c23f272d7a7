"""The session's model: the one it recorded, reopened (`session_model`), and `/model`'s
choices and switch (`model_controls`)."""
