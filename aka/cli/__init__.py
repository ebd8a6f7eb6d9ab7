"""The `aka` command line: parse, configure, call into the parts; nothing else."""
