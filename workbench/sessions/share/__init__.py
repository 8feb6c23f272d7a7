"""Sessions through git remotes: where they go on a remote (`remote`), sending (`push`) and
bringing back (`pull`), the front ends' entry points (`sharing`), and what must never leave the
machine: the credential scan of entries and the description, and their redacted copies
(`secret_scan`), and of the commits the remote does not have yet (`commit_scan`)."""
