"""``chatcli serve``: chatcli over HTTP — a JSON API with SSE streams, bearer tokens and the web
page. :mod:`.cli` is the command, :mod:`.app` the Starlette application, :mod:`.tokens` the token
file, :mod:`.limits` the body-size and rate limits, :mod:`.errors` the JSON error bodies."""
