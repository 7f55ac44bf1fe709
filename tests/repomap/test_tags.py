"""Tags from the grammars' own queries: each language's definitions, by name and kind, and the
names a file uses."""

from __future__ import annotations

import pytest
from chatcli_repomap.languages import language_of
from chatcli_repomap.tags import extract

LANGUAGES = [
    # (file, source, definitions (name, kind) that must be found, a name it uses)
    ("a.py", "class Shape:\n    def area(self):\n        return helper_call(1)\n\n"
             "def top_level():\n    pass\n",
     {("Shape", "class"), ("area", "function"), ("top_level", "function")}, "helper_call"),
    ("a.js", "class Widget { render() { return drawThing(); } }\nfunction make() {}\n",
     {("Widget", "class"), ("render", "method"), ("make", "function")}, "drawThing"),
    ("a.jsx", "function App() { return <div>{useThing()}</div>; }\n",
     {("App", "function")}, "useThing"),
    ("a.ts", "interface Point { x: number }\nclass Plot { draw(p: Point) {} }\n"
             "function scale(p: Point): Point { return p; }\n",
     {("Point", "interface"), ("Plot", "class"), ("draw", "method"), ("scale", "function")},
     "Point"),
    ("a.tsx", "export function View(): JSX.Element { return <b>{label()}</b>; }\n",
     {("View", "function")}, "label"),
    ("a.go", "package m\n\ntype Server struct{}\n\nfunc (s *Server) Serve() { handle() }\n"
             "func Start() {}\n",
     {("Server", "type"), ("Serve", "method"), ("Start", "function")}, "handle"),
    ("a.rs", "struct Engine;\nimpl Engine { fn run(&self) { step(); } }\nfn main() {}\n",
     {("Engine", "class"), ("run", "method"), ("main", "function")}, "step"),
    ("A.java", "class Account { void deposit() { audit(); } }\n",
     {("Account", "class"), ("deposit", "method")}, "audit"),
    ("a.c", "struct point { int x; };\nint add(int a) { return twice(a); }\n",
     {("add", "function")}, "twice"),
    ("a.cpp", "class Box { public: int size(); };\nint Box::size() { return count(); }\n",
     {("Box", "class")}, "count"),
    ("a.rb", "class Cart\n  def total\n    sum_items\n  end\nend\n",
     {("Cart", "class"), ("total", "method")}, "sum_items"),
]


@pytest.mark.parametrize(("path", "source", "defs", "used"), LANGUAGES,
                         ids=[case[0] for case in LANGUAGES])
def test_each_language_gives_its_definitions_and_uses(path: str, source: str, defs, used) -> None:
    language = language_of(path)
    assert language is not None
    tags = extract(source.encode(), language)
    assert tags is not None
    found = {(name, kind) for name, kind, _row, _line, _end in tags.defs}
    assert defs <= found
    assert used in tags.refs
    for name, _kind, row, line, end in tags.defs:  # the line shown is the definition's own
        assert name in line and line == source.splitlines()[row][:240]
        assert row <= end < len(source.splitlines())


def test_a_method_reads_in_its_class() -> None:
    from chatcli_repomap.render import render

    source = ("class Outer:\n    def first(self):\n        pass\n\n"
              "    def wanted_method(self):\n        pass\n\n"
              "if True:\n    def not_in_a_class():\n        pass\n")
    tags = extract(source.encode(), "python")
    assert tags is not None
    outline = [(row, end, kind, text) for _n, kind, row, text, end in tags.defs]
    by_name = {d[0]: d for d in tags.defs}
    text, _, _ = render([("a.py", "wanted_method", by_name["wanted_method"][2],
                          by_name["wanted_method"][3])], None, {"a.py": outline})
    assert text == "a.py:\n    1│class Outer:\n    5│    def wanted_method(self):"
    alone, _, _ = render([("a.py", "not_in_a_class", by_name["not_in_a_class"][2],
                           by_name["not_in_a_class"][3])], None, {"a.py": outline})
    assert alone == "a.py:\n    9│    def not_in_a_class():"  # an if is no container


@pytest.mark.parametrize("path", ["README.md", "Makefile", "x.txt", ".py", "dir.py/x",
                                  "noext"])
def test_other_files_are_not_parsed(path: str) -> None:
    assert language_of(path) is None


def test_broken_source_still_gives_what_parses() -> None:
    tags = extract(b"def good_one():\n    pass\n\ndef broken(:\n", "python")
    assert tags is not None and "good_one" in {d[0] for d in tags.defs}
