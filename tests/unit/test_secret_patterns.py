"""Every credential format a push looks for, each with a case it must find and one it must not."""

from __future__ import annotations

import json

import pytest

from workbench.redaction import find_in_value, find_secrets, redact_secrets, redact_value

FOUND = [
    ("OpenAI key", "export OPENAI=sk-abcdEFGH1234ijklMNOP5678qrstUVWX"),
    ("OpenAI key", "key: sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z_-Q"),
    ("Anthropic key", "ANTHROPIC sk-ant-api03-Zx8Qp2Lm9Vr4Tk7Wn3Yb6Hc1Jd5Ge0Fa"),
    ("AWS access key", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE"),
    ("GitHub token", "token ghp_1A2b3C4d5E6f7G8h9I0jK1l2M3n4O5p6Q7r8"),
    ("GitHub token", "github_pat_11ABCDEFG0123456789_abcdefghijKLMNOPQRSTUVWXyz012345"),
    ("Slack token", "SLACK=xoxb-123456789012-abcdefghijKLMN"),
    ("Slack token", "xoxp-1234567890-0987654321-abcdef"),
    (
        "private key block",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----",
    ),
    (
        "private key block",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----",
    ),
    ("secret assignment", "DATABASE_PASSWORD=Zx8Qp2Lm9Vr4Tk7Wn3Yb6Hc1"),
    ("secret assignment", 'api_key = "q7W9e2R4t6Y8u1I3o5P7a9S2d4F6"'),
    ("secret assignment", "STRIPE_SECRET: 9f8e7d6c5b4a39281716a5b4c3d2e1f0"),
    ("secret assignment", "const apiKey = 'q7W9e2R4t6Y8u1I3o5P7a9S2d4F6'"),
    # A digest's or a UUID's shape after a name that holds a secret is still a secret.
    ("secret assignment", "api_key: a3f9c2e1b7d84f6a9c0e2b4d6f8a1c3e5b7d9f0a"),
    ("secret assignment", "HEROKU_API_KEY=3f2b8c1e-7d4a-4e9b-a1c3-5f6e7d8c9b0a"),
    ("secret assignment", '"session_token": "9fceb02d0ae598e95dc970b74767f19372d61af8"'),
]
IDS = [f"{kind}-{n}" for n, (kind, _) in enumerate(FOUND)]

NOT_FOUND = [
    "sk-short",  # too short to be a key
    "task-abcdEFGH1234ijklMNOP5678qrstUVWX",  # `sk-` inside a word
    "XAKIAIOSFODNN7EXAMPLE",  # `AKIA` inside a word
    "the task-ant-colony is sk-ant-",
    "AKIA lower akiaiosfodnn7example",
    "ghp_short",
    "xoxz-1234567890-abc",  # not a Slack token type
    "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----",
    "PATH=/usr/local/bin:/usr/bin:/bin/and/more",  # not a key name
    "MAX_TOKENS=100000000000000000000000",  # not random: digits only
    "PRIMARY_KEY=aaaaaaaaaaaaaaaaaaaaaaaaaaaa",  # not random
    "SORT_KEY=created_at_descending_order",  # a word, not random
    # Identifiers after the name of an identifier: a git SHA, a SHA-256 digest, a UUID.
    "cache_key: 9fceb02d0ae598e95dc970b74767f19372d61af8",
    "idempotency_key: 3f2b8c1e-7d4a-4e9b-a1c3-5f6e7d8c9b0a",
    '"commit_key": "9fceb02d0ae598e95dc970b74767f19372d61af8"',
    "IMAGE_DIGEST_KEY=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
]


@pytest.mark.parametrize(("kind", "text"), FOUND, ids=IDS)
def test_each_format_is_found_and_redacted(kind: str, text: str) -> None:
    found = find_secrets(text)
    assert [m.kind for m in found] == [kind]
    redacted = redact_secrets(text)
    assert f"[REDACTED {kind}]" in redacted
    secret = text[found[0].start : found[0].end]
    assert secret not in redacted and secret[6:-2] not in found[0].shown


@pytest.mark.parametrize("text", NOT_FOUND)
def test_look_alikes_are_not_found(text: str) -> None:
    assert find_secrets(text) == []


@pytest.mark.parametrize(("kind", "text"), FOUND, ids=IDS)
def test_found_inside_an_entry_as_json(kind: str, text: str) -> None:
    """Entries are stored as JSON: quotes and newlines arrive escaped."""
    encoded = json.dumps({"payload": {"text": f"here: {text}"}})
    assert [m.kind for m in find_secrets(encoded)] == [kind]
    assert json.loads(redact_secrets(encoded))["payload"]["text"].startswith("here: ")


def test_a_decoded_value_is_read_field_by_field_and_redacted_everywhere() -> None:
    """What entries store: a key at the start of a line, in a nested field, under a key name."""
    key = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
    value = {
        "text": f"first\n{key}\nand\t{key}",
        "details": {
            "reports": [{"answer": f"quoted:\n{key}"}],
            "password": "Zx8Qp2Lm9Vr4Tk7Wn3Yb6",
        },
    }
    found = [(f.field, f.line, f.match.kind) for f in find_in_value(value)]
    assert found == [
        ("text", 2, "OpenAI key"),
        ("text", 3, "OpenAI key"),
        ("details.reports[0].answer", 2, "OpenAI key"),
        ("details.password", 1, "secret assignment"),
    ]
    clean, count = redact_value(value)
    assert count == 4 and key not in json.dumps(clean) and "Zx8Qp2" not in json.dumps(clean)
    assert clean["text"] == "first\n[REDACTED OpenAI key]\nand\t[REDACTED OpenAI key]"
