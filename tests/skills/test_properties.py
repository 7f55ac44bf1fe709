"""Properties (Hypothesis) of the format's rules and the readers: names are valid exactly when
the specification says so; well-formed frontmatter reads back unchanged with no problem; the
lenient reader never raises and reads an unquoted colon as text; globs match as they should."""

from __future__ import annotations

import string

import yaml
from chatcli_skills.frontmatter import read_lenient, read_strict
from chatcli_skills.matching import glob_regex
from chatcli_skills.skill import load_skill
from chatcli_skills.spec import field_problems, name_problems, valid_name
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ALLOWED = set(string.ascii_lowercase + string.digits + "-")
VALID_NAMES = st.from_regex(r"[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,6}", fullmatch=True).filter(
    lambda n: len(n) <= 64)


def _reference_valid(name: str) -> bool:
    """The specification's rules, written out one by one."""
    return (1 <= len(name) <= 64 and set(name) <= ALLOWED and not name.startswith("-")
            and not name.endswith("-") and "--" not in name)


@given(VALID_NAMES)
def test_names_of_the_spec_are_valid(name):
    assert valid_name(name)
    assert name_problems(name, name) == []
    assert name_problems(name, name + "x") == [
        f"'name' {name!r} differs from its folder's name {name + 'x'!r}"]


@given(st.text(alphabet=string.ascii_letters + string.digits + "-_. é", max_size=70))
def test_a_name_is_valid_exactly_when_the_rules_hold(name):
    assert valid_name(name) == _reference_valid(name)
    problems = name_problems(name)
    assert (problems == []) == _reference_valid(name), problems


@given(st.one_of(st.integers(), st.none(), st.lists(st.text()), st.booleans()))
def test_a_name_that_is_not_text_is_one_problem(value):
    assert len(name_problems(value)) == 1 and not valid_name(value)


_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1,
                max_size=300).filter(lambda t: t.strip())


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(name=VALID_NAMES, description=_TEXT,
       metadata=st.dictionaries(st.from_regex(r"[a-z]{1,8}", fullmatch=True), _TEXT,
                                max_size=3),
       tools=st.lists(st.from_regex(r"[A-Za-z]{1,8}", fullmatch=True), max_size=3),
       triggers=st.lists(_TEXT, max_size=3))
def test_well_formed_frontmatter_reads_back_unchanged_without_problems(name, description,
                                                                       metadata, tools,
                                                                       triggers):
    fields = {"name": name, "description": description, "metadata": metadata,
              "allowed-tools": tools, "triggers": triggers}
    text = "---\n" + yaml.safe_dump(fields, allow_unicode=True, sort_keys=False) + "---\nbody\n"
    parsed = read_strict(text)
    assert parsed.errors == [] and parsed.fields == fields
    assert parsed.body == "body\n"
    expected = [] if len(description) <= 1024 else [
        f"'description' is {len(description):,} characters, over the limit of 1,024"]
    assert field_problems(fields, name) == expected


@given(st.text(max_size=400))
def test_the_lenient_reader_never_raises(text):
    parsed = read_lenient(text)
    assert (parsed.fields is None) == bool(parsed.errors)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=300))
def test_loading_any_bytes_never_raises(tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("skill") / "any"
    folder.mkdir()
    (folder / "SKILL.md").write_bytes(b"---\n" + data)
    loaded = load_skill(folder, "user", "test")
    assert (loaded.skill is None) != (loaded.skipped is None)


_WORDS = st.lists(st.from_regex(r"[A-Za-z][A-Za-z0-9]{0,8}", fullmatch=True), min_size=1,
                  max_size=5).map(" ".join)


@given(before=_WORDS, after=_WORDS)
def test_an_unquoted_colon_is_read_as_text_with_one_warning(before, after):
    value = f"{before}: {after}"
    text = f"---\nname: x\ndescription: {value}\n---\nbody\n"
    assert read_strict(text).fields is None  # YAML refuses it
    parsed = read_lenient(text)
    assert parsed.fields == {"name": "x", "description": value}
    assert parsed.warnings == ["line 3: unquoted colon in the value of 'description'; read it "
                               "as text (quote the value)"]


_SEGMENT = st.from_regex(r"[a-z0-9_]{1,6}", fullmatch=True)


@given(folders=st.lists(_SEGMENT, max_size=4), stem=_SEGMENT,
       extension=st.sampled_from(["py", "ts", "md", "pyc"]))
def test_globs_match_as_gitignore_does(folders, stem, extension):
    path = "/".join([*folders, f"{stem}.{extension}"])
    assert bool(glob_regex("**/*.py").match(path)) == (extension == "py")
    assert bool(glob_regex("*.py").match(path)) == (extension == "py")
    assert bool(glob_regex("*.{ts,md}").match(path)) == (extension in ("ts", "md"))
    top = bool(glob_regex(f"{folders[0]}/**").match(path)) if folders else None
    assert top in (True, None)
    assert bool(glob_regex("src/*.py").match(path)) == (
        folders == ["src"] and extension == "py")
