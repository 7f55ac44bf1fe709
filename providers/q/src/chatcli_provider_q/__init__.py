"""chatcli provider: the Amazon Q Developer CLI (q chat), plain or as a persistent daemon."""
