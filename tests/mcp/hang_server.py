"""An MCP server that never answers: it reads stdin and says nothing (the init timeout test)."""

import sys

for _line in sys.stdin:
    pass
