"""chatcli-compaction: compaction strategies and /compact."""
