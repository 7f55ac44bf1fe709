"""chatcli-admin: the administration commands of ``chatcli`` — ``config``, ``keys``, ``models``,
``plugins`` and ``trust`` — added through the kernel's ``register_commands`` hook."""
