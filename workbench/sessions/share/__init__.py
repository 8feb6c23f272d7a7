"""Sessions through git remotes: where they go on a remote (`remote`), sending (`push`) and
bringing back (`pull`), the front ends' entry points (`sharing`), and what must never leave the
machine: the credential scan (`secret_scan`) and redacted copies of file commits
(`file_redaction`)."""
