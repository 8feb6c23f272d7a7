"""`--variant` as the user writes it: keys, typed values, names a branch can carry."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.errors import UsageError
from workbench.sweeps.variants import parse_variants


def test_keys_values_and_readable_names() -> None:
    a, b, c = parse_variants(
        [
            "model=openai/gpt-4.1,enforcer.mode=off",
            "compaction.enabled=false,retry.max_retries=3",
            "skills=alpha,beta,model=anthropic/claude",
        ]
    )
    assert (a.name, a.model, a.settings) == (
        "gpt-4.1-off",
        "openai/gpt-4.1",
        {"enforcer.mode": "off"},
    )
    assert b.settings == {"compaction.enabled": False, "retry.max_retries": 3}
    assert b.nested_settings() == {"compaction": {"enabled": False}, "retry": {"max_retries": 3}}
    assert (c.skills, c.model, c.name) == (
        ["alpha", "beta"],
        "anthropic/claude",
        "skills-alpha-beta-claude",
    )
    assert parse_variants(["skills=none"])[0].skills == []
    assert [v.name for v in parse_variants(["model=x/a", "model=y/a"])] == ["a", "a-v2"]
    assert parse_variants([])[0].name == "default"


def test_prompt_from_a_file(tmp_path: Path) -> None:
    (tmp_path / "alt.md").write_text("ask it this way")
    [variant] = parse_variants([f"prompt=@{tmp_path / 'alt.md'}"])
    assert variant.prompt == "ask it this way" and variant.name == "prompt"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("modle=x", "unknown key 'modle'"),
        ("retry.max_retries=many", "retry.max_retries takes a int"),
        ("compaction.enabled=3", "compaction.enabled takes a bool"),
        ("model", "each part is KEY=VALUE"),
    ],
)
def test_what_is_refused(text: str, said: str) -> None:
    with pytest.raises(UsageError, match=said):
        parse_variants([text])
