"""Entry module of chatcli-provider-q (light: imports nothing heavy)."""

from __future__ import annotations
