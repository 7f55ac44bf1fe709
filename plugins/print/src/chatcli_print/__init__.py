"""chatcli-print: ``chatcli -p PROMPT`` — answer a prompt once and exit.

The entry module is :mod:`chatcli_print.plugin` (one hookimpl); the work is in
:mod:`chatcli_print.prompt` (the prompt from ``-p`` and piped stdin) and
:mod:`chatcli_print.oneshot` (the answer), imported when a prompt is answered.
"""
