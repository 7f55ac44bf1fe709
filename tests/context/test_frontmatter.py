"""The frontmatter reader of rule files: the shapes rule files use, and properties (hypothesis):
it never raises, and lists of globs written in any of the three styles read back the same."""

from __future__ import annotations

from chatcli_context.frontmatter import parse_frontmatter, split_list
from chatcli_context.globs import expand_braces
from hypothesis import given, settings
from hypothesis import strategies as st


def test_block_and_inline_lists_quotes_comments_and_block_scalars() -> None:
    text = ("\ufeff---\r\n"
            "paths:\r\n"
            "  - \"src/**/*.py\"   # sources\r\n"
            "  - 'it''s/*.md'\r\n"
            "\r\n"
            "  - tests/**\r\n"
            "globs: [a.py, \"b, c.py\", 'd#e.py']\r\n"
            "description: >\r\n"
            "  folded\r\n"
            "  text\r\n"
            "note: |\r\n"
            "  kept\r\n"
            "  lines\r\n"
            "Title: plain # comment\r\n"
            "url: http://x/#anchor\r\n"
            "---\r\n"
            "The body.\n")
    fields, body = parse_frontmatter(text)
    assert fields["paths"] == ["src/**/*.py", "it's/*.md", "tests/**"]
    assert fields["globs"] == ["a.py", "b, c.py", "d#e.py"]
    assert fields["description"] == "folded text"
    assert fields["note"] == "kept\nlines"
    assert fields["title"] == "plain"
    assert fields["url"] == "http://x/#anchor"
    assert body == "The body.\n"


def test_without_a_closed_frontmatter_the_whole_file_is_the_body() -> None:
    assert parse_frontmatter("no frontmatter\n---\n") == ({}, "no frontmatter\n---\n")
    assert parse_frontmatter("---\npaths: a\nnever closed\n") == (
        {}, "---\npaths: a\nnever closed\n")
    assert parse_frontmatter("---\n...\nbody") == ({}, "body")
    assert parse_frontmatter("") == ({}, "")


def test_comma_lists_keep_braces_together_and_braces_expand() -> None:
    assert split_list("src/*.{ts,tsx}, docs/**, 'a,b'") == ["src/*.{ts,tsx}", "docs/**",
                                                            "'a,b'"]
    assert expand_braces("src/*.{ts,tsx}") == ["src/*.ts", "src/*.tsx"]
    assert expand_braces("{a,b{c,d}}/x") == ["a/x", "bc/x", "bd/x"]
    assert expand_braces("no{brace}") == ["no{brace}"]
    assert expand_braces("{a,b}" * 10) == ["{a,b}" * 10]  # 1,024 patterns: kept as written


_glob = st.text(alphabet=st.sampled_from("abcxyz/*._-0129"), min_size=1, max_size=20).filter(
    lambda g: g.strip() and not g.startswith(("-", "#")) and "/#" not in g and g[0] not in "'\"")


@settings(max_examples=300)
@given(st.text(max_size=400))
def test_it_never_raises_and_a_body_is_always_text(text: str) -> None:
    fields, body = parse_frontmatter(text)
    assert isinstance(body, str)
    assert all(isinstance(v, (str, list)) for v in fields.values())


@settings(max_examples=300)
@given(st.lists(_glob, min_size=1, max_size=6))
def test_globs_read_back_the_same_in_every_style(globs: list[str]) -> None:
    quoted = ", ".join('"' + g + '"' for g in globs)
    block = "\n".join(f"  - {g}" for g in globs)
    inline = parse_frontmatter(f"---\npaths: [{quoted}]\n---\nbody")[0]["paths"]
    listed = parse_frontmatter(f"---\npaths:\n{block}\n---\nbody")[0]["paths"]
    assert inline == listed == globs


@settings(max_examples=200)
@given(st.lists(st.text(alphabet="abc*/.", min_size=1, max_size=8), min_size=1, max_size=4))
def test_brace_expansion_gives_every_alternative(options: list[str]) -> None:
    expanded = expand_braces("x/{" + ",".join(options) + "}.py")
    if len(options) > 1:
        assert expanded == [f"x/{o}.py" for o in options]
    else:
        assert expanded == [f"x/{{{options[0]}}}.py"]
