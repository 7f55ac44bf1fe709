"""``chatcli_records_lite.dataclass``: the same classes as ``dataclasses.dataclass`` (repr,
equality, hashing, frozen, slots, fields, replace), with ``__repr__``/``__eq__``/``__hash__``
shared instead of compiled for each class (what made importing the kernel's records slow)."""

from __future__ import annotations

import dataclasses
from dataclasses import field
from typing import Any

import pytest
from chatcli_records_lite import dataclass as cheap_dataclass
from hypothesis import given
from hypothesis import strategies as st

VARIANTS = [  # the options the kernel uses, one line each
    {},
    {"frozen": True},
    {"frozen": True, "slots": True},
    {"slots": True},
]


def _make(decorator: Any) -> Any:
    class Record:
        """A record."""

        name: str
        text: str = "t"
        hidden: int = field(default=3, repr=False)
        ignored: int = field(default=0, compare=False)
        items: tuple[int, ...] = field(default=(), hash=False)

    return decorator(Record)


@pytest.mark.parametrize("options", VARIANTS, ids=str)
def test_the_same_class_as_dataclasses_makes(options: dict[str, bool]) -> None:
    standard, cheap = _make(dataclasses.dataclass(**options)), _make(cheap_dataclass(**options))
    one, other = standard("x", items=(1,)), cheap("x", items=(1,))
    assert repr(other) == repr(one) == (
        "_make.<locals>.Record(name='x', text='t', ignored=0, items=(1,))")
    assert (cheap("x", ignored=5) == cheap("x")) is (standard("x", ignored=5) == standard("x"))
    assert (cheap("x") == cheap("y")) is (standard("x") == standard("y")) is False
    assert cheap("x").__eq__(3) is NotImplemented
    assert (cheap.__hash__ is None) is (standard.__hash__ is None)
    if options.get("frozen"):
        assert hash(cheap("x", items=(1,))) == hash(standard("x", items=(2,)))
        with pytest.raises(dataclasses.FrozenInstanceError):
            other.name = "changed"
    assert [f.name for f in dataclasses.fields(cheap)] == [
        f.name for f in dataclasses.fields(standard)]
    assert repr(cheap.__dataclass_params__) == repr(standard.__dataclass_params__)
    assert dataclasses.replace(other, name="z") == cheap("z", items=(1,))
    assert dataclasses.asdict(other) == dataclasses.asdict(one)
    assert cheap.__match_args__ == standard.__match_args__
    assert hasattr(cheap, "__slots__") is hasattr(standard, "__slots__")
    assert cheap.__repr__.__qualname__ == standard.__repr__.__qualname__


@pytest.mark.parametrize("decorator", [dataclasses.dataclass, dataclasses.dataclass(frozen=True),
                                       cheap_dataclass, cheap_dataclass(frozen=True)])
def test_methods_the_class_defines_are_kept(decorator: Any) -> None:
    class Own:
        """Defines its own equality and repr."""

        a: int = 1

        def __eq__(self, other: object) -> bool:
            return True

        def __repr__(self) -> str:
            return "own"

    class Hashed:
        """Defines its own hash."""

        a: int = 1

        def __hash__(self) -> int:
            return 7

    own, hashed = decorator(Own), decorator(Hashed)
    assert own() == 5 and repr(own()) == "own"
    frozen = dataclasses.fields(own) and own.__dataclass_params__.frozen
    assert (own.__hash__ is None) is (not frozen)  # eq defined, frozen adds a hash
    assert hash(hashed()) == 7


def test_a_recursive_repr_shows_dots() -> None:
    @cheap_dataclass
    class Node:
        """Refers to itself."""

        next: object = None

    node = Node()
    node.next = node
    assert repr(node) == "test_a_recursive_repr_shows_dots.<locals>.Node(next=...)"


@given(st.text(), st.integers(), st.text())
def test_repr_and_equality_match_dataclasses(name: str, number: int, text: str) -> None:
    standard, cheap = _STANDARD(name, text, number), _CHEAP(name, text, number)
    assert repr(cheap).replace("Cheap", "") == repr(standard).replace("Standard", "")
    assert (cheap == _CHEAP(name, text, number)) and hash(cheap) == hash(standard)


@dataclasses.dataclass(frozen=True)
class _Standard:
    """Compared with ``_Cheap``."""

    name: str
    text: str
    number: int


@cheap_dataclass(frozen=True)
class _Cheap:
    """Compared with ``_Standard``."""

    name: str
    text: str
    number: int


_STANDARD, _CHEAP = _Standard, _Cheap


def test_the_kernel_records_share_their_methods() -> None:
    """No ``__repr__``/``__eq__``/``__hash__`` is compiled for the kernel's call records."""
    from chatcli._calls import ChatRequest, PromptSection, TextDelta, Tool, ToolSpec

    codes = {cls.__eq__.__code__ for cls in (ChatRequest, PromptSection, TextDelta, Tool, ToolSpec)}
    reprs = {cls.__repr__.__code__ for cls in (ChatRequest, PromptSection, TextDelta, ToolSpec)}
    assert len(codes) == 1 and len(reprs) == 1
    assert PromptSection("a", "b") == PromptSection("a", "b")
    assert repr(TextDelta("hi")) == "TextDelta(text='hi', type='text')"
