"""chatcli-memory-api on its own: the contract's records validate, default to fresh values, and
importing the library does the start-up work of the kernel's models and no more (no tokenizer);
the kernel no longer serves these names."""

from __future__ import annotations

import subprocess
import sys

import chatcli
import chatcli_memory_api
import pytest
from chatcli_memory_api import (
    MemoryBackend,
    MemoryBackendSpec,
    MemoryHit,
    MemoryItem,
    MemoryKind,
    Provenance,
)
from pydantic import ValidationError


def test_the_names_moved_out_of_the_kernel() -> None:
    assert set(chatcli_memory_api.__all__) == {
        "MemoryBackend", "MemoryBackendSpec", "MemoryHit", "MemoryItem", "MemoryKind",
        "Provenance"}
    assert not set(chatcli_memory_api.__all__) & set(chatcli.__all__)
    with pytest.raises(AttributeError):
        chatcli.MemoryItem  # noqa: B018


def test_an_item_has_its_defaults_and_fresh_containers() -> None:
    one, two = MemoryItem(text="uses uv"), MemoryItem(text="uses pip")
    assert one.id.startswith("mem_") and one.id != two.id
    assert (one.kind, one.provenance, one.scope, one.uses) == (
        MemoryKind.FACT, Provenance.EXTRACTED, "global", 0)
    one.metadata["x"] = 1
    assert two.metadata == {}
    assert MemoryHit(one, 0.5).item is one


@pytest.mark.parametrize(("field", "value"), [
    ("confidence", 1.5),
    ("confidence", -0.1),
    ("kind", "dream"),
    ("provenance", "guessed"),
])
def test_an_item_refuses_what_the_contract_does_not_allow(field: str, value: object) -> None:
    with pytest.raises(ValidationError):
        MemoryItem.model_validate({"text": "x", field: value})


def test_a_backend_is_recognised_by_its_methods() -> None:
    class Nothing:
        name = "none"

    assert not isinstance(Nothing(), MemoryBackend)
    spec = MemoryBackendSpec("none", lambda settings: Nothing())  # type: ignore[arg-type,return-value]
    assert spec.description == "" and spec.factory(None).name == "none"  # type: ignore[arg-type]


def test_importing_the_library_runs_no_tokenizer() -> None:
    code = ("import sys, chatcli_memory_api as m; m.MemoryItem(text='x'); "
            "t = sys.modules.get('tokenize'); "
            "print(0 if t is None else t._compile.cache_info().misses)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.strip() == "0"
