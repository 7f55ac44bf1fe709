"""chatcli-sessions: conversations saved in SQLite as they happen; /session, /rewind, /fork."""
