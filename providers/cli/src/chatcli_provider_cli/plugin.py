"""Entry module of chatcli-provider-cli (light: imports nothing heavy)."""

from __future__ import annotations
