"""The conversation as git: entries are commits (`entries`, `refs`), the conversation store the
agent appends to (`store`), a session's small mutable state (`state`), one writer per session
(`lock`), where a project's sessions live (`location`) and which there are (`catalog`), who
commits are attributed to (`identity`), and git run for one directory (`gitcmd`) on one worker
thread (`worker`); `jsontext` writes JSON that never fails on odd text."""
