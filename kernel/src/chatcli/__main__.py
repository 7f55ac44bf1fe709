"""``python -m chatcli``: the same as the ``chatcli`` command."""

import sys

from chatcli._entry import main

sys.exit(main())
