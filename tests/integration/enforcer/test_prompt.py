"""The topology in the system prompt: byte-identical across turns, changed only by a reload."""

from __future__ import annotations

import os

from support.skill_trees import Spec, write_skill


def touch_later(path):
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))


async def test_the_prompt_is_stable_across_turns(harness):
    h = harness()
    first = await h.system_prompt()
    assert first.startswith("You are helpful.\n\n## Skill graph\n")
    await h.read("publish-report")
    await h.read("outline")
    assert (await h.system_prompt()).encode() == first.encode()
    assert [e.type for e in h.sink.events if e.type == "skills_reloaded"] == []


async def test_a_changed_skill_file_changes_the_prompt_once(harness):
    h = harness()
    before = await h.system_prompt()
    path = h.root / ".pi/skills/publish-report/SKILL.md"
    path.write_text(path.read_text().replace("Does publish report.", "Publishes a report."))
    touch_later(path)
    after = await h.system_prompt()
    assert after != before
    assert "- publish-report (.pi/skills/publish-report/SKILL.md): Publishes a report." in after
    assert (await h.system_prompt()) == after
    reloads = [e for e in h.sink.events if e.type == "skills_reloaded"]
    assert [(e.skills, e.diagnostics) for e in reloads] == [(12, 11)]  # the fixture's findings


async def test_a_new_skill_is_checked_after_the_reload(harness):
    h = harness()
    await h.system_prompt()
    write_skill(h.root / ".pi/skills", "ship-release", Spec("compound", ("write-draft",)))
    prompt = await h.system_prompt()
    assert "- ship-release (.pi/skills/ship-release/SKILL.md)" in prompt
    await h.read("ship-release")
    await h.read("write-draft")
    assert h.verdicts() == [("ship-release", "ok"), ("write-draft", "ok")]


async def test_the_section_is_not_appended_twice(harness):
    h = harness()
    once = await h.system_prompt()
    assert await h.system_prompt(once) == once
