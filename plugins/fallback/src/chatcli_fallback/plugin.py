"""Entry module of chatcli-fallback (light: imports nothing heavy)."""

from __future__ import annotations
