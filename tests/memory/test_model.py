"""The memory model on its own (over the SQLite backend, a clock the tests move): confidence
by provenance, merging near-identical items, superseding by subject, key and id, strength by
use and age, the profile's single keys, the project scope."""

from __future__ import annotations

from pathlib import Path

import pytest
from chatcli_memory.model import Memory, SecretRefused, similarity, tokens
from chatcli_memory.project import project_scope
from chatcli_memory.settings import MemoryOptions
from chatcli_memory.sqlite_backend import SqliteBackend
from chatcli_memory_api import MemoryKind, Provenance
from memory_support import DAY, Clock


@pytest.fixture
def memory(tmp_path: Path) -> Memory:
    clock = Clock()
    backend = SqliteBackend(tmp_path / "m.db", clock=clock)
    return Memory(backend, MemoryOptions(), project_scope="project:p-1", clock=clock)


def test_tokens_and_similarity() -> None:
    assert tokens("Remember: the Projects use UV!") == {"project", "use", "uv"}
    assert similarity("The project uses uv.", "project uses uv") == 1.0
    assert similarity("we use uv", "we use pip") == pytest.approx(1 / 3)
    assert similarity("", "") == 1.0


def test_confidence_by_provenance(memory: Memory) -> None:
    stated = memory.remember("tests live in tests/", provenance=Provenance.STATED)
    extracted = memory.remember("the docs are in docs/", provenance=Provenance.EXTRACTED,
                                secrets="redact")
    corrected = memory.remember("the api is versioned", provenance=Provenance.CORRECTED)
    assert [o.item.confidence for o in (stated, extracted, corrected)] == [0.9, 0.6, 1.0]
    assert stated.item.scope == "global" and memory.scope_for("project") == "project:p-1"


def test_an_extracted_repeat_of_a_stated_fact_keeps_it_stated(memory: Memory) -> None:
    first = memory.remember("deploys run on fridays", provenance=Provenance.EXTRACTED,
                            secrets="redact")
    again = memory.remember("Deploys run on Fridays.", provenance=Provenance.STATED)
    assert again.action == "merged" and again.item.id == first.item.id
    assert (again.item.provenance, again.item.confidence) == (Provenance.STATED, 0.9)


def test_profile_single_keys_supersede_and_many_keys_add(memory: Memory) -> None:
    memory.remember("Ada", kind=MemoryKind.PROFILE, key="name")
    renamed = memory.remember("Ada Lovelace", kind=MemoryKind.PROFILE, key="name")
    assert renamed.action == "superseded" and renamed.replaced.text == "Ada"
    memory.remember("terse answers", kind=MemoryKind.PROFILE, key="preference")
    memory.remember("dark themes", kind=MemoryKind.PROFILE, key="preference")
    memory.remember("terse answers", kind=MemoryKind.PROFILE, key="directive")
    assert [(i.key, i.text) for i in memory.profile()] == [
        ("name", "Ada Lovelace"), ("preference", "terse answers"),
        ("preference", "dark themes"), ("directive", "terse answers")]


def test_supersedes_names_only_a_live_item_of_the_same_kind(memory: Memory) -> None:
    topic = memory.remember("sqlite", kind=MemoryKind.TOPIC)
    fact = memory.remember("something else entirely", supersedes=topic.item.id)
    assert fact.action == "stored"
    assert not memory.backend.get(topic.item.id).archived


def test_strength_by_use_and_age(memory: Memory) -> None:
    item = memory.remember("a fact").item
    assert memory.strength(item) == pytest.approx(0.9)
    now = memory.clock()
    assert memory.strength(item, now + 30 * DAY) == pytest.approx(0.45)
    used = item.model_copy(update={"uses": 5, "last_used_at": now + 30 * DAY})
    assert memory.strength(used, now + 30 * DAY) == pytest.approx(1.0)  # 0.9 × 1.36, capped
    profile = memory.remember("Ada", kind=MemoryKind.PROFILE, key="name").item
    assert memory.strength(profile, now + 3650 * DAY) == pytest.approx(0.9)


def test_secrets(memory: Memory) -> None:
    with pytest.raises(SecretRefused, match=r"^not remembered: the text holds an API key"):
        memory.remember("use ghp_abcdefghijklmnopqrstuvwxyz0123")
    assert memory.remember("ghp_abcdefghijklmnopqrstuvwxyz0123", secrets="redact",
                           provenance=Provenance.EXTRACTED).action == "skipped"


def test_project_scope(tmp_path: Path) -> None:
    root = tmp_path / "my app"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    scope = project_scope(root / "src")
    assert scope is not None and scope.startswith("project:my-app-") and len(scope) == 23
    assert project_scope(root, "team-key") == "project:team-key"
    assert project_scope(tmp_path) is None
