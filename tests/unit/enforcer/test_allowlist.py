"""The allowlist (`skills.allow` / `skills.deny`) and the `allowed-tools` report."""

from __future__ import annotations

import json

import pytest
from support.skill_trees import Spec, write_skill

from workbench.config import Settings
from workbench.enforcer.activation import missing_tools, required_tools
from workbench.enforcer.allowlist import Allowlist, close_matches
from workbench.errors import WorkbenchError


def settings(tmp_path, data):
    (tmp_path / ".pi").mkdir(exist_ok=True)
    (tmp_path / ".pi" / "settings.json").write_text(json.dumps(data))
    return Settings.load(tmp_path)


def test_default_allows_everything(tmp_path):
    allowlist = Allowlist.from_settings(settings(tmp_path, {}))
    assert allowlist.permits_everything and allowlist.allows("anything")


def test_allow_and_deny_globs_with_deny_winning(tmp_path):
    allowlist = Allowlist.from_settings(
        settings(tmp_path, {"skills": {"allow": ["report-*", "fetch-url"], "deny": ["*-draft"]}})
    )
    assert allowlist.allows("report-weekly") and allowlist.allows("fetch-url")
    assert not allowlist.allows("report-draft")
    assert "`skills.deny` pattern `*-draft`" in allowlist.refusal("report-draft")
    assert "no `skills.allow` pattern" in allowlist.refusal("outline")


def test_a_single_pattern_string_is_accepted_and_bad_values_are_explained(tmp_path):
    assert Allowlist.from_settings(settings(tmp_path, {"skills": {"deny": "x-*"}})).deny == ("x-*",)
    with pytest.raises(WorkbenchError, match=r"skills.allow must be a list of glob patterns"):
        Allowlist.from_settings(settings(tmp_path, {"skills": {"allow": {"a": 1}}}))


def test_pi_style_skill_path_list_leaves_the_allowlist_open(tmp_path):
    allowlist = Allowlist.from_settings(settings(tmp_path, {"skills": ["./more-skills"]}))
    assert allowlist.permits_everything


def test_close_matches_by_similarity_then_substring():
    names = ["publish-report", "publish-release", "triage-bug", "report-weekly"]
    assert close_matches("publish-reprot", names)[0] == "publish-report"
    assert "report-weekly" in close_matches("report", names)
    assert close_matches("zzz", names) == []


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Read Write Edit Bash", ["Read", "Write", "Edit", "Bash"]),
        ("Bash, Read, WebSearch", ["Bash", "Read", "WebSearch"]),
        ("Bash(git add:*) Bash(git status) Read", ["Bash", "Read"]),
        (["Read", "Grep"], ["Read", "Grep"]),
        (None, []),
    ],
)
def test_required_tools_parsing(tmp_path, value, expected):
    extra = {} if value is None else {"allowed-tools": value}
    assert required_tools(write_skill(tmp_path, "s", Spec(extra=extra))) == expected


def test_missing_tools_ignore_case(tmp_path):
    skill = write_skill(tmp_path, "s", Spec(extra={"metadata": {"allowed-tools": "Read Grep"}}))
    assert missing_tools(skill, ["read", "bash"]) == ["Grep"]
