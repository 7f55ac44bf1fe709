"""``python -m chatcli_cli``: the same as the ``chatcli`` command."""

import sys

from chatcli_cli.main import main

sys.exit(main())
