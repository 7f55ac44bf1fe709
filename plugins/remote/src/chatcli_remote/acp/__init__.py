"""``chatcli acp``: chatcli as an Agent Client Protocol agent on stdin/stdout (for editors).

- :mod:`.cli`: the click command (stdout kept for JSON-RPC, everything else on stderr).
- :mod:`.streams`: stdin and the private stdout as asyncio streams (pipes or files).
- :mod:`.agent`: :class:`~.agent.ChatcliAgent`, the protocol's methods.
- :mod:`.live`: one editor session: a chatcli :class:`chatcli.Session` whose turns and slash
  commands run on a worker thread, approvals asked through ``session/request_permission``.
- :mod:`.toolcalls`: tool calls as ACP tool call cards, and the approver (permission requests).
- :mod:`.outbox`: the ordered bridge from the worker thread to the asyncio loop.
- :mod:`.files`: the editor's buffers as chatcli's file access (``fs/read_text_file``…).
- :mod:`.convert`: chatcli's records as ACP updates (tool calls, diffs, plans, history).

Imported only when ``chatcli acp`` runs (the package ``acp`` is loaded here, never at start-up).
"""
