"""A replica for the concurrency tests: ``python pg_session_writer.py URL SESSION TAG N``.

Prints ``ready`` once imported, waits for ``go`` on stdin, then — racing the other writers —
opens its own store on the database and N times: loads the session, appends a user message
``TAG n`` on its head (the store moves the head by compare-and-set). Prints one JSON line per
append, ``[message id, true]`` when its head move won and ``[message id, false]`` when another
writer had moved the head first (HeadMoved: the message is a branch), then ``done``.
"""

from __future__ import annotations

import json
import sys

from chatcli import Message
from chatcli_sessions_api import HeadMoved
from chatcli_sessions_postgres.settings import PostgresConfig
from chatcli_sessions_postgres.store import PostgresSessionStore


def main(url: str, session_id: str, tag: str, count: int) -> None:
    """Run one writer (see the module's docstring)."""
    print("ready", flush=True)
    if sys.stdin.readline().strip() != "go":
        raise SystemExit("no go")
    store = PostgresSessionStore.open(PostgresConfig(url=url))
    results = []
    for n in range(count):
        conversation = store.load(session_id)
        message = Message.user(f"{tag} {n}")
        conversation.append(message)
        try:
            store.append(conversation, message)
        except HeadMoved:
            results.append([message.id, False])
        else:
            results.append([message.id, True])
    store.close()
    for result in results:
        print(json.dumps(result), flush=True)
    print("done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]))
