"""chatcli-personas-core: chatcli's persona pack — sixteen specialised personalities, a verifier
among them."""
