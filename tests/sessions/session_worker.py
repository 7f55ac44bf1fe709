"""A separate chatcli-like process for the concurrency tests: appends turns through the plugin.

    python session_worker.py TAG TURNS GO_FILE [SESSION_REF]

Prints ``ready``, waits for GO_FILE to exist (so workers start together), appends TURNS turns
(checkpoint, user message, assistant message — as the engine does) to a new session or to
SESSION_REF, then prints ``done SESSION_ID HEAD_ID``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from chatcli import Conversation, Message, PluginHost, Settings, attach_hooks
from chatcli_sessions import plugin


def main() -> int:
    tag, turns, go_file = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
    ref = sys.argv[4] if len(sys.argv) > 4 else None
    host = PluginHost()
    host.register(plugin, "sessions")
    if ref:
        conversation = host.hooks.open_conversation(settings=Settings(), resume=ref,
                                                    continue_last=False)
    else:
        conversation = Conversation()
    attach_hooks(conversation, host)
    print("ready", flush=True)
    while not go_file.exists():
        time.sleep(0.005)
    for n in range(turns):
        conversation.checkpoint(f"{tag}{n}")
        conversation.append(Message.user(f"{tag} question {n}"))
        conversation.append(Message.assistant(f"{tag} answer {n}"))
        time.sleep(0.003)  # the model call between turns; lets the other writer in
    if host.failures:
        print("failures", host.failures, flush=True)
        return 1
    print("done", conversation.id, conversation.head, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
