"""What the sandbox tests share with their fixtures (tests/integration/sandbox/conftest.py)."""

SECRET = "-----BEGIN FAKE KEY----- sandbox-test-secret"
"""The content of the fake `~/.ssh/id_rsa`: a boxed command must never print it."""
