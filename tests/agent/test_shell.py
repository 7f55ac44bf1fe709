"""Shell command lines as data (chatcli_agent._shell): every simple command is found wherever it
hides, words come back as the shell reads them, wrappers are looked through, and nothing ever
raises; a compound command is allowed only when every part of it is."""

from __future__ import annotations

import pytest
from agent_support import call
from chatcli import Decision
from chatcli_agent._shell import analyse, expand_braces, parse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def names(text: str) -> list[list[str]]:
    return [c.argv() for c in analyse(text, "/home/u").commands
            if not c.looked_through and c.words]


@pytest.mark.parametrize(("text", "expected"), [
    ("a && b || c; d & e", [["a"], ["b"], ["c"], ["d"], ["e"]]),
    ("a | b |& c", [["a"], ["b"], ["c"]]),
    ("(a; b) && { c; }", [["a"], ["b"], ["c"]]),
    ("echo $(rm x) `id` <(ls) >(cat)", [["rm", "x"], ["id"], ["ls"], ["cat"],
                                        ["echo", "$(rm x)", "`id`", "<(ls)", ">(cat)"]]),
    ('echo "in $(whoami) string"', [["whoami"], ["echo", "in $(whoami) string"]]),
    ("echo ${X:-$(rm y)}", [["rm", "y"], ["echo", "${X:-$(rm y)}"]]),
    ("x=$(rm -rf z)", [["rm", "-rf", "z"]]),
    ("if a; then b; elif c; then d; else e; fi", [["a"], ["b"], ["c"], ["d"], ["e"]]),
    ("for f in *; do rm $f; done", [["rm", "$f"]]),
    ("while a; do b; done; until c; do d; done", [["a"], ["b"], ["c"], ["d"]]),
    ("case $x in a) rm y;; b) ls;; esac", [["rm", "y"], ["ls"]]),
    ("f() { rm x; }; f", [["rm", "x"], ["f"]]),
    ("! rm x", [["rm", "x"]]),
    ("cat <<EOF\n$(rm z)\nEOF", [["cat"], ["rm", "z"]]),
    ("[[ -f $(rm q) ]] && ls", [["rm", "q"], ["ls"]]),
    ("for ((i=0; i<3; i++)); do rm $i; done", [["rm", "$i"]]),
])
def test_every_simple_command_is_found(text: str, expected: list[list[str]]) -> None:
    assert names(text) == expected


@pytest.mark.parametrize(("text", "argv"), [
    (r"\rm -rf x", ["rm", "-rf", "x"]),
    ('"r"m x', ["rm", "x"]),
    ("r''m x", ["rm", "x"]),
    ("$'\\x72m' x", ["rm", "x"]),
    ("echo 'a b' \"c d\" e\\ f", ["echo", "a b", "c d", "e f"]),
    ('echo "a\\"b" \'it\'"s"', ["echo", 'a"b', "its"]),
    ('rm -rf "$HOME/x" ${HOME}', ["rm", "-rf", "/home/u/x", "/home/u"]),
])
def test_words_are_read_as_the_shell_reads_them(text: str, argv: list[str]) -> None:
    assert names(text) == [argv]


def test_dynamic_and_glob_words_are_marked() -> None:
    [command] = analyse("cat $X *.py '*.txt' a{b,c}", "/h").commands
    dynamic = [w.dynamic for w in command.args]
    globbed = [w.glob for w in command.args]
    assert dynamic == [True, False, False, False]
    assert globbed == [False, True, False, False]
    assert command.args[3].brace
    assert expand_braces("a{b,c}d") == ["abd", "acd"]
    assert expand_braces("x{1..3}") == ["x1", "x2", "x3"]


@pytest.mark.parametrize(("text", "argv", "via"), [
    ("sudo -u bob timeout 5 nice -n 2 rm x", ["rm", "x"], ("sudo", "timeout", "nice")),
    ("env -i A=1 B=2 npm test", ["npm", "test"], ("env",)),
    ("nohup stdbuf -oL python app.py &", ["python", "app.py"], ("nohup", "stdbuf")),
    ("ls | xargs -n 1 -I{} rm {}", ["rm", "{}"], ("xargs",)),
    ("command -p exec time rm x", ["rm", "x"], ("command", "exec", "time")),
    ("sh -c 'rm x'", ["rm", "x"], ("sh -c",)),
    ("bash -lc \"cat .env\"", ["cat", ".env"], ("bash -c",)),
    ("bash -c \"sh -c 'rm y'\"", ["rm", "y"], ("bash -c", "sh -c")),
    ("su root -c 'rm z'", ["rm", "z"], ("su -c",)),
    ("eval rm w", ["rm", "w"], ("eval",)),
    ("watch -n 1 'ls; rm v'", ["rm", "v"], ("watch",)),
    ("find . -name x -exec rm {} \\;", ["rm", "{}"], ("find -exec",)),
    ("bash <<'EOF'\nrm u\nEOF", ["rm", "u"], ("bash",)),
])
def test_wrappers_are_looked_through(text: str, argv: list[str], via: tuple[str, ...]) -> None:
    commands = analyse(text, "/h").commands
    found = [c for c in commands if c.argv() == argv]
    assert found, [c.argv() for c in commands]
    assert found[0].via == via


def test_redirections_are_collected_with_their_targets() -> None:
    script = parse("{ a; b; } > out 2>> err < in; c &> both >| clobber; d 2>&1")
    ops = [(r.op, r.target.value if r.target else None) for r in script.redirects]
    assert ("&>", "both") in ops and (">", "out") in ops and (">>", "err") in ops
    assert ("<", "in") in ops and (">|", "clobber") in ops and (">&", "1") in ops
    writes = {r.target.value for r in script.redirects if r.writes}
    assert writes == {"out", "err", "both", "clobber"}


@pytest.mark.parametrize("text", ["echo 'unterminated", "ls ((", "a && ", "echo $(", "if x; then",
                                  "x" * 200_000, "ls \x00 x"])
def test_unreadable_commands_have_errors(text: str) -> None:
    assert not parse(text).ok


def test_characters_that_crash_tree_sitter_bash_are_read_safely() -> None:
    """tree-sitter-bash 0.25 dies with SIGSEGV on ``{`` + U+E2D7B (hypothesis found it): the
    parser sees stand-in bytes, so the process survives (checked in a child process, so that a
    regression fails this test instead of killing the test run)."""
    import subprocess
    import sys

    code = ("from chatcli_agent._shell.parse import parse\n"
            "for c in (0xE0001, 0xE2D7B, 0xF0000, 0x8E842):\n"
            "    parse('{' + chr(c), '/h'); parse('echo {' + chr(c), '/h')\n"
            "print('alive')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "alive", done.stderr


def test_words_keep_their_non_ascii_text() -> None:
    script = parse('echo "🎉 done" > café.txt && cat ключ.txt', "/h")
    first, second = script.commands
    assert [w.value for w in first.words] == ["echo", "🎉 done"]
    assert first.redirects[0].target.value == "café.txt"
    assert [w.value for w in second.words] == ["cat", "ключ.txt"]


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    deep = "echo " + "$(" * 400 + "x" + ")" * 400
    assert analyse(deep).errors != []


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300))
def test_the_parser_never_raises(text: str) -> None:
    analyse(text, "/home/u")


SHELLISH = st.lists(st.sampled_from(
    ["ls", "rm", "-rf", "$(", ")", "`", "'", '"', "|", "&&", ";", "&", "<<", "EOF", "\n", ">",
     "sh", "-c", "sudo", "${", "}", "{", "(", "cat", ".env", "*", "~", "..", "/", "\\", "eval",
     "xargs", "find", "-exec", "<(", "$'\\x41'", "#", "if", "then", "fi", "for", "do", "done"]),
    max_size=40).map(" ".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(SHELLISH)
def test_the_policy_never_raises_on_shell_like_text(ws_policy, text: str) -> None:
    judged = ws_policy.judge(*call("exec", command=text))
    assert judged.verdict.decision in (Decision.ALLOW, Decision.ASK, Decision.DENY)
    assert "\n" not in ws_policy.unattended(judged).reason


ALLOWED = ["ls -la", "git status", "cat README.md", "npm test -- -k x", "echo hi", "pwd",
           "grep -n x src/app.py", "wc -l README.md", "git log --oneline", "head -3 README.md"]
NOT_ALLOWED = ["npm install", "make", "touch new.txt", "rm -rf src", "curl https://x",
               "python -c 1", "cat .env", "ls /etc", "git push", "cat secrets/key.txt"]


@pytest.fixture
def ws_policy(ws, policy):
    return policy(rules=(("allow", "exec(npm test:*)"), ("deny", "read(./secrets/**)")))


@settings(max_examples=200, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 9)), min_size=1, max_size=6),
       st.lists(st.sampled_from(["&&", "||", ";", "|", "&"]), min_size=5, max_size=5))
def test_a_compound_command_is_allowed_only_when_every_part_is(ws_policy, parts, joins) -> None:
    words = [(ALLOWED if ok else NOT_ALLOWED)[i] for ok, i in parts]
    text = words[0]
    for index, word in enumerate(words[1:]):
        text += f" {joins[index]} {word}"
    decision = ws_policy.judge(*call("exec", command=text)).verdict.decision
    assert (decision == Decision.ALLOW) == all(ok for ok, _ in parts), text


@pytest.mark.parametrize("text", ["ls && rm -rf src", "ls; curl https://x", "ls || touch x",
                                  "ls | python -c 1", "ls & make", "(ls; make)", "{ ls; make; }",
                                  "ls $(make)", "echo `make`", "cat <(make)",
                                  "if ls; then make; fi", "for f in a; do make; done",
                                  "ls > new.txt", "echo hi >> README.md"])
def test_an_allowed_prefix_does_not_allow_what_follows(ws_policy, text) -> None:
    assert ws_policy.judge(*call("exec", command=text)).verdict.decision != Decision.ALLOW
