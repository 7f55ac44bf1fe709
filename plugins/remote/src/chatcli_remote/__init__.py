"""chatcli-remote: chatcli beyond its own terminal — the ACP agent (``chatcli acp``), the HTTP
server (``chatcli serve``), the remote client (``chatcli --remote URL``) and the web page."""
