"""Which files each conversation branch works on: the project checkout or a worktree of its own
(`workspace`, `half_made`), forking one (`fork`), the files it changed (`files`, `diff`, `status`;
an export's own pages left out: `export_mark`),
sealing them (`commit`, `commit_message`, `commit_trailers`) and bringing them back (`merge`)."""
