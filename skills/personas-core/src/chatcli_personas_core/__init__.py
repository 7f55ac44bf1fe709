"""chatcli-personas-core: chatcli's persona pack — fifteen specialised personalities."""
