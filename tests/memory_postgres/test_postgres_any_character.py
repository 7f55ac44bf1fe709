"""What the memory model stores reaches PostgreSQL whatever its characters: NUL and lone
surrogates (a model's extraction, a pasted text) are replaced before the text is stored —
PostgreSQL's ``text`` refuses NUL, and psycopg cannot encode a lone surrogate."""

from __future__ import annotations

import pytest
from chatcli_memory.model import Memory
from chatcli_memory.settings import MemoryOptions
from chatcli_memory_api import MemoryKind, Provenance

CASES = [
    ("nul", "the build uses\x00 make"),
    ("lone surrogate", "the build uses \ud800 make"),
    ("both, and a pair split in halves", "use \ud83d\ude00 and \udfff and \x00 too"),
]


@pytest.mark.parametrize(("name", "text"), CASES, ids=[c[0] for c in CASES])
def test_any_character_is_remembered_on_postgres(open_backend, name: str, text: str) -> None:
    backend = open_backend()
    memory = Memory(backend, MemoryOptions(), project_scope="project:p-1")
    for provenance, secrets in ((Provenance.STATED, "refuse"),
                                (Provenance.EXTRACTED, "redact")):
        outcome = memory.remember(text + f" ({provenance.value})", kind=MemoryKind.FACT,
                                  provenance=provenance, secrets=secrets)
        assert outcome.action == "stored", outcome
        stored = backend.get(outcome.item.id)
        assert stored is not None
        assert "\x00" not in stored.text and "\ufffd" in stored.text
        stored.text.encode("utf-8")  # no lone surrogate left
        assert "make" in stored.text or "use" in stored.text
