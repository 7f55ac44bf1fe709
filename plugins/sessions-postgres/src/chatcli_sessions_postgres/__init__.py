"""chatcli-sessions-postgres: chatcli's sessions in PostgreSQL, shared by a team's server
replicas (see README.md)."""
