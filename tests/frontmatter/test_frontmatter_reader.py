"""chatcli-frontmatter, the one reader of YAML frontmatter: what it reads, each way it refuses
(one line, a kind), its two leniencies, and (Hypothesis) that any text is read or refused with
the reader's own one-line error — never anything else."""

from __future__ import annotations

import pytest
import yaml
from chatcli_frontmatter import FrontmatterError, read, read_lines, split
from hypothesis import given, settings
from hypothesis import strategies as st


def test_fields_body_and_where_the_body_starts() -> None:
    doc = read("\ufeff---\r\nname: x\r\ntags: [a, b]\r\ncount: 3\r\n---\r\nThe body.\n")
    assert doc.fields == {"name": "x", "tags": ["a", "b"], "count": 3}
    assert doc.body == "The body.\n" and doc.body_line == 6
    assert doc.duplicates == () and doc.warnings == ()


def test_duplicate_keys_are_recorded_and_the_last_wins() -> None:
    doc = read("---\nname: a\nname: b\nmeta:\n  k: 1\n  k: 2\n---\n")
    assert doc.fields["name"] == "b" and doc.duplicates == ("name", "k")
    assert doc.fields["meta"] == {"k": 2}


REFUSED = [
    # (text, kind, the one line, the body kept)
    ("no fence\n", "missing", "no frontmatter: the file must start with a '---' line",
     "no fence\n"),
    ("", "missing", "no frontmatter: the file must start with a '---' line", ""),
    ("---\nname: x\n", "unclosed", "the frontmatter is not closed by a '---' line",
     "---\nname: x\n"),
    ("---\nname: x\ndescription: a: b\n---\nB\n", "yaml",
     "line 3: the frontmatter is not valid YAML: a colon followed by a space inside an unquoted "
     "value (quote the value)", "B\n"),
    ("---\n- a\n- b\n---\nB\n", "not-mapping", "the frontmatter is a list, not a mapping", "B\n"),
    ("---\n\n---\nB\n", "empty", "the frontmatter is empty", "B\n"),
    ("---\n" + "[" * 2000 + "\n---\nB\n", "yaml", None, "B\n"),
]


@pytest.mark.parametrize(("text", "kind", "line", "body"), REFUSED,
                         ids=[f"{r[1]}-{i}" for i, r in enumerate(REFUSED)])
def test_each_refusal_is_one_line_of_its_kind(text: str, kind: str, line: str | None,
                                              body: str) -> None:
    with pytest.raises(FrontmatterError) as caught:
        read(text)
    err = caught.value
    assert err.kind == kind and err.body == body
    assert "\n" not in str(err)
    if line is not None:
        assert str(err) == line


def test_an_unquoted_colon_is_repaired_only_when_asked() -> None:
    text = "---\nname: x\ndescription: Use when: asked\n---\nB\n"
    with pytest.raises(FrontmatterError):
        read(text)
    doc = read(text, repair=True)
    assert doc.fields == {"name": "x", "description": "Use when: asked"}
    assert doc.warnings == ("line 3: unquoted colon in the value of 'description'; read it as "
                            "text (quote the value)",)


def test_text_only_keeps_every_scalar_as_written() -> None:
    doc = read("---\nn: 012\nb: true\nf: 1.50\nl: [5, no]\n---\n", text_only=True)
    assert doc.fields == {"n": "012", "b": "true", "f": "1.50", "l": ["5", "no"]}
    assert read("---\nn: 012\nb: true\n---\n").fields == {"n": 10, "b": True}


def test_a_closing_fence_past_max_lines_is_no_frontmatter() -> None:
    text = "---\n" + "k: v\n" * 10 + "---\nB"
    assert read(text, max_lines=11).body == "B"
    with pytest.raises(FrontmatterError) as caught:
        read(text, max_lines=10)
    assert caught.value.kind == "unclosed" and caught.value.body == text


def test_the_line_reader_reads_what_yaml_refuses() -> None:
    front, _body, _line, _error = split("---\nGlobs: *.ts, src/*.{a,b}\npaths:\n  - *.py\n"
                                        "  - 'it''s'\nnote: |\n  a\n  b\n---\n")
    assert front is not None
    with pytest.raises(FrontmatterError):
        read("---\n" + front + "---\n")
    assert read_lines(front) == {"globs": "*.ts, src/*.{a,b}", "paths": ["*.py", "it's"],
                                 "note": "a\nb"}


_FIELDS = st.dictionaries(st.from_regex(r"[a-z][a-z_-]{0,8}", fullmatch=True),
                          st.one_of(st.text(max_size=40), st.integers(), st.booleans(),
                                    st.lists(st.text(max_size=10), max_size=3)), max_size=5)


@settings(max_examples=200)
@given(_FIELDS, st.text(max_size=60))
def test_what_yaml_writes_reads_back_as_yaml_reads_it(fields: dict, body: str) -> None:
    dumped = yaml.safe_dump(fields, allow_unicode=True)
    doc = read("---\n" + dumped + "---\n" + body)  # no fields: "{}", an empty mapping
    # PyYAML's own reading (it does not read back every character it writes: U+0085)
    assert doc.fields == yaml.safe_load(dumped) and doc.body == body
    if "\x85" not in dumped:
        assert doc.fields == fields


_SHAPES = st.one_of(
    st.text(max_size=300),
    st.text(max_size=300).map(lambda t: "---\n" + t),
    st.tuples(st.text(max_size=200), st.text(max_size=50)).map(
        lambda p: "---\n" + p[0] + "\n---\n" + p[1]),
    st.lists(st.sampled_from(["---", "...", "a: b", "a: b: c", "- x", "  - *y", "k: [1,",
                              "k: '", "\t", "key:", "  v", "? x", "&a b", "!!python/name:os",
                              "{", "\ufeff", "\r", "\u2028", "#c"]), max_size=12).map(
        "\n".join),
)


@settings(max_examples=500)
@given(_SHAPES, st.booleans(), st.booleans())
def test_any_text_is_read_or_refused_with_the_readers_own_one_line_error(
        text: str, repair: bool, text_only: bool) -> None:
    try:
        doc = read(text, repair=repair, text_only=text_only)
    except FrontmatterError as err:
        assert "\n" not in str(err) and "\r" not in str(err)
        assert err.kind in ("missing", "unclosed", "yaml", "empty", "not-mapping")
        assert isinstance(err.body, str)
    else:
        assert isinstance(doc.fields, dict) and isinstance(doc.body, str)
    assert all(isinstance(v, (str, list)) for v in read_lines(text).values())


def test_the_errors_and_warnings_in_portuguese(chatcli_language) -> None:
    with pytest.raises(FrontmatterError, match=r"^no frontmatter: the file must start"):
        read("body only\n")
    chatcli_language("pt_BR")
    with pytest.raises(FrontmatterError) as caught:
        read("body only\n")
    assert (caught.value.kind, str(caught.value)) == (
        "missing", "sem frontmatter: o arquivo deve começar com uma linha '---'")
    with pytest.raises(FrontmatterError, match=r"^o frontmatter não é fechado"):
        read("---\nname: x\n")
    with pytest.raises(FrontmatterError, match=r"^linha 3: o frontmatter não é YAML válido: "):
        read("---\nname: x\n  - bad: [\n---\n")
    doc = read("---\ndescription: a: b\n---\n", repair=True)
    assert doc.warnings == ("linha 2: dois-pontos sem aspas no valor de 'description'; lido "
                            "como texto (ponha o valor entre aspas)",)
