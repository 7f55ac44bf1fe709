"""Sessions belong to a project: the real command line in two git repositories (``-c`` in each
continues its own), ``sessions list`` / ``--all``, ``--resume`` without an id (listed, chosen on
a terminal), sessions written before projects existed, a first turn that failed on the network
(no session left behind), and what ``/rewind`` puts back after ``/coder``.

The model is the OpenAI wire server of chatcli_testing; every run is a real ``chatcli`` process
in the folder it belongs to.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from chatcli_sessions.commands import command_prefix
from chatcli_sessions.project import age, current_project, shown_folder
from chatcli_sessions.schema import MIGRATIONS
from chatcli_sessions.store import SessionStore
from chatcli_testing import Fault, Reply, ToolCall
from hypothesis import given
from hypothesis import strategies as st

CHATCLI = Path(sys.executable).parent / "chatcli"


def git_repo(folder: Path) -> Path:
    """A git repository at ``folder`` (made)."""
    folder.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    return folder


class World:
    """Two git repositories and a plain folder, chatcli's home and the wire server."""

    def __init__(self, root: Path, home: Path, server: object) -> None:
        self.alpha = git_repo(root / "alpha")
        self.beta = git_repo(root / "beta")
        self.plain = root / "plain"
        self.plain.mkdir()
        (self.alpha / "src").mkdir()
        self.home = home
        self.server = server
        self.env = dict(os.environ, OPENAI_API_KEY="test",
                        OPENAI_BASE_URL=server.url)  # type: ignore[attr-defined]

    def run(self, where: Path, *args: str, stdin: str | None = None
            ) -> subprocess.CompletedProcess[str]:
        """``chatcli ARGS`` in ``where`` (stdin: ``stdin``, else nothing)."""
        return subprocess.run([str(CHATCLI), *args], cwd=where, env=self.env, text=True,
                              capture_output=True, timeout=90, input=stdin,
                              stdin=None if stdin is not None else subprocess.DEVNULL)

    def ask(self, where: Path, *args: str, answer: str) -> subprocess.CompletedProcess[str]:
        """One ``-p`` run answered with ``answer``; it must succeed."""
        self.server.script(Reply(text=answer))  # type: ignore[attr-defined]
        done = self.run(where, "--provider", "openai", *args)
        assert done.returncode == 0, done.stderr
        assert answer in done.stdout
        return done

    def sent(self) -> list[str]:
        """The user and assistant texts of the newest request (each one's first line)."""
        request = self.server.requests[-1].json  # type: ignore[attr-defined]
        return [str(m["content"]).splitlines()[0] for m in request["messages"]
                if m["role"] in ("user", "assistant")]

    def listed(self, where: Path, *args: str) -> list[dict]:
        done = self.run(where, "sessions", "list", "--json", *args)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    def db(self) -> Path:
        return self.home / "data" / "sessions.db"


@pytest.fixture
def world(home: Path, tmp_path: Path, openai_server) -> World:
    return World(tmp_path / "work", home, openai_server)


# ------------------------------------------------------------------------------- -c per project


def test_continue_in_each_repository_goes_on_with_its_own_session(world: World) -> None:
    world.ask(world.alpha, "-p", "alpha question", answer="alpha answer")
    world.ask(world.beta, "-p", "beta question", answer="beta answer")  # the newest overall

    world.ask(world.alpha, "-c", "-p", "alpha again", answer="alpha 2")
    assert world.sent() == ["alpha question", "alpha answer", "alpha again"]
    world.ask(world.beta, "-c", "-p", "beta again", answer="beta 2")
    assert world.sent() == ["beta question", "beta answer", "beta again"]
    # a folder inside a repository is that repository's project (its git root)
    world.ask(world.alpha / "src", "-c", "-p", "from src", answer="alpha 3")
    assert world.sent()[:4] == ["alpha question", "alpha answer", "alpha again", "alpha 2"]

    alpha, beta = world.listed(world.alpha), world.listed(world.beta)
    assert [s["title"] for s in alpha] == ["alpha question"] and alpha[0]["messages"] == 6
    assert [s["title"] for s in beta] == ["beta question"] and beta[0]["messages"] == 4
    assert alpha[0]["project"] == str(world.alpha.resolve())
    assert alpha[0]["cwd"] == str(world.alpha.resolve())
    assert beta[0]["project"] == str(world.beta.resolve())
    assert {s["id"] for s in world.listed(world.plain, "--all")} == {alpha[0]["id"],
                                                                      beta[0]["id"]}


def test_continue_where_the_project_has_no_session_says_so_and_sends_nothing(
        world: World) -> None:
    world.ask(world.alpha, "-p", "alpha question", answer="alpha answer")
    before = len(world.server.requests)
    done = world.run(world.plain, "--provider", "openai", "-c", "-p", "hello")
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()[-1:]
    assert line == (f"chatcli: error: there is no saved session in this project "
                    f"({world.plain.resolve()}) to continue — run chatcli without -c to start "
                    "one, or chatcli --resume to choose one of the 1 session of other projects")
    assert len(world.server.requests) == before
    # a plain folder is a project of its own: its first session is its own to continue
    world.ask(world.plain, "-p", "plain question", answer="plain answer")
    world.ask(world.plain, "-c", "-p", "plain again", answer="plain 2")
    assert world.sent() == ["plain question", "plain answer", "plain again"]


# ------------------------------------------------------------------------------- sessions list


def test_sessions_list_shows_this_project_and_all_shows_every_project(world: World) -> None:
    world.ask(world.alpha, "-p", "alpha question", answer="alpha answer")
    world.ask(world.beta, "-p", "beta question", answer="beta answer")

    mine = world.run(world.alpha, "sessions", "list")
    lines = mine.stdout.splitlines()
    assert lines[0].split() == ["ID", "NAME", "UPDATED", "MSGS", "MODEL", "TITLE"]
    assert len(lines) == 2 and lines[1].endswith("alpha question")  # piped: no footer

    every = world.run(world.alpha, "sessions", "list", "--all").stdout.splitlines()
    assert every[0].split() == ["ID", "NAME", "UPDATED", "MSGS", "MODEL", "FOLDER", "TITLE"]
    assert len(every) == 3
    assert every[1].split()[-3:] == [str(world.beta.resolve()), "beta", "question"]
    assert every[2].split()[-3:] == [str(world.alpha.resolve()), "alpha", "question"]

    empty = world.run(world.plain, "sessions", "list")
    assert empty.stdout == (f"No saved sessions in this project ({world.plain.resolve()}); "
                            "2 in other projects: chatcli sessions list --all.\n")


# ------------------------------------------------------------------------------- --resume


def test_resume_without_an_id_and_no_terminal_lists_this_projects_sessions(
        world: World) -> None:
    world.ask(world.alpha, "-p", "first alpha", answer="a1")
    world.ask(world.beta, "-p", "beta question", answer="b1")
    world.ask(world.alpha, "-p", "second alpha", answer="a2")
    before = len(world.server.requests)
    done = world.run(world.alpha, "--provider", "openai", "--resume", "-p", "go on")
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert lines[0] == f"Sessions of this project ({world.alpha.resolve()}), newest first:"
    assert "second alpha — just now, 2 msgs · " in lines[1] and lines[1].lstrip()[:2] == "1 "
    assert "first alpha — just now, 2 msgs · " in lines[2]
    assert str(world.alpha.resolve()) in lines[1]
    assert lines[3].split() == ["a", "every", "project", "(1", "more", "in", "other",
                                "projects)"]
    assert lines[-1] == ("chatcli: error: --resume without an id needs a terminal to choose "
                         "on — give the session: chatcli --resume ID (ids above)")
    assert len(world.server.requests) == before
    # -c and --resume together are still refused
    both = world.run(world.alpha, "-c", "--resume", "-p", "x")
    assert both.returncode == 2 and "-c and --resume both choose" in both.stderr


def on_a_terminal(where: Path, env: dict[str, str], args: list[str], answers: list[str],
                  prompt: bytes = b"Resume which session?") -> str:
    """Run ``chatcli ARGS`` with stdin, stdout and stderr on a pseudo-terminal, typing each of
    ``answers`` (and Enter) when ``prompt`` appears; returns everything it showed."""
    import pty
    import select

    master, slave = pty.openpty()
    process = subprocess.Popen([str(CHATCLI), *args], cwd=where, env=env, stdin=slave,
                               stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    shown = b""
    pending = list(answers)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            shown += chunk
        if pending and shown.count(prompt) > len(answers) - len(pending):
            os.write(master, pending.pop(0).encode() + b"\r")
        if process.poll() is not None and not ready:
            break
    os.close(master)
    process.wait(timeout=30)
    return shown.decode("utf-8", "replace").replace("\r\n", "\n")


def test_resume_without_an_id_on_a_terminal_asks_and_every_project_is_one_key_away(
        world: World) -> None:
    world.ask(world.alpha, "-p", "first alpha", answer="a1")
    world.ask(world.beta, "-p", "beta question", answer="b1")
    world.ask(world.alpha, "-p", "second alpha", answer="a2")

    world.server.script(Reply(text="picked the older one"))
    shown = on_a_terminal(world.alpha, world.env, ["--provider", "openai", "--resume", "-p",
                                                   "more"], ["2"])
    assert "picked the older one" in shown, shown
    assert world.sent() == ["first alpha", "a1", "more"]

    world.server.script(Reply(text="over in beta"))
    shown = on_a_terminal(world.alpha, world.env, ["--provider", "openai", "--resume", "-p",
                                                   "from alpha"], ["a", "1"])
    assert "Sessions of every project, newest first:" in shown
    assert str(world.beta.resolve()) in shown and "over in beta" in shown, shown
    assert world.sent()[0] == "first alpha"  # the newest of all: just continued
    assert "beta question" not in world.sent()

    world.server.script(Reply(text="enter takes the newest"))
    shown = on_a_terminal(world.beta, world.env, ["--provider", "openai", "--resume", "-p",
                                                  "newest"], [""])
    assert "enter takes the newest" in shown
    assert world.sent()[:2] == ["beta question", "b1"]

    before = len(world.server.requests)
    shown = on_a_terminal(world.beta, world.env, ["--provider", "openai", "--resume", "-p",
                                                  "x"], ["q"])
    assert "no session chosen — chatcli --resume ID resumes a given one" in shown
    assert len(world.server.requests) == before


# ------------------------------------------------------------------------------- old sessions


def test_sessions_written_before_projects_load_and_count_as_no_project(
        home: Path, world: World) -> None:
    """A database of schema 2 (no project column) with a session in it: migrated in place,
    the session is listed only under --all, as "(no project)", and --resume ID continues it."""
    db = world.db()
    db.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(db, isolation_level=None) as con:
        for migration in MIGRATIONS[:2]:
            migration(con)
        con.execute("PRAGMA user_version = 2")
        con.execute("INSERT INTO sessions(id, title, created_at, updated_at, provider, model,"
                    " head, cwd) VALUES ('s_old', 'an old one', 1, 2, 'openai', 'm', 'msg_2',"
                    " ?)", (str(world.alpha),))
        for seq, (mid, parent, role, text) in enumerate(
                [("msg_1", None, "user", "old question"),
                 ("msg_2", "msg_1", "assistant", "old answer")], 1):
            message = {"id": mid, "parent_id": parent, "role": role,
                       "parts": [{"type": "text", "text": text}], "created_at": seq}
            con.execute("INSERT INTO messages(id, session_id, parent_id, seq, role, text, json,"
                        " created_at) VALUES (?, 's_old', ?, ?, ?, ?, ?, ?)",
                        (mid, parent, seq, role, text, json.dumps(message), seq))
    con.close()

    assert world.listed(world.alpha) == []
    [old] = world.listed(world.alpha, "--all")
    assert old["id"] == "s_old" and old["project"] is None
    every = world.run(world.alpha, "sessions", "list", "--all").stdout.splitlines()
    assert every[1].endswith("(no project)  an old one")
    refused = world.run(world.alpha, "--provider", "openai", "-c", "-p", "x")
    assert refused.returncode == 2 and "no saved session in this project" in refused.stderr

    world.ask(world.alpha, "--resume", "s_old", "-p", "new question", answer="new answer")
    assert world.sent() == ["old question", "old answer", "new question"]
    with SessionStore(db) as store:
        assert store.info("s_old").project is None  # still nobody's: it was not started here
        assert store.info("s_old").messages == 4


# ------------------------------------------------------------------------------- failed first turn


def test_a_first_turn_that_failed_leaves_no_session(world: World) -> None:
    world.ask(world.alpha, "-p", "an earlier session", answer="earlier answer")
    world.server.script(Fault(status=401, message="bad key"))
    failed = world.run(world.alpha, "--provider", "openai", "-p", "lost question")
    assert failed.returncode != 0
    assert [s["title"] for s in world.listed(world.alpha, "--all")] == ["an earlier session"]
    # -c goes on with the session that has an answer
    world.ask(world.alpha, "-c", "-p", "next", answer="fine")
    assert world.sent() == ["an earlier session", "earlier answer", "next"]
    # a stream cut before anything arrived: the same
    world.server.script(Fault(cut_after=0, reply=Reply(text="never")), Fault(status=401))
    world.run(world.beta, "--provider", "openai", "-p", "cut short")
    assert world.listed(world.beta) == []


def test_a_question_whose_answer_failed_is_saved_with_the_first_answer(
        home: Path, host, db_path: Path) -> None:
    """In a chat the question stays (/retry sends it again): once an answer comes, the session
    is written whole — the failed question included."""
    from chatcli import Message
    from sessions_helpers import new_conversation

    conversation = new_conversation(host)
    conversation.checkpoint("lost question")
    conversation.append(Message.user("lost question"))
    with SessionStore(db_path) as store:
        assert store.list() == []
    conversation.append(Message.assistant("at last"))
    with SessionStore(db_path) as store:
        [info] = store.list()
        assert info.title == "lost question" and info.messages == 2
        assert info.project == current_project()
        assert [c.label for c in store.checkpoints(info.id)] == ["lost question"]


def test_rewind_and_clear_of_an_unanswered_conversation_write_nothing(
        host, db_path: Path) -> None:
    from chatcli import Message
    from sessions_helpers import new_conversation

    conversation = new_conversation(host)
    checkpoint = conversation.checkpoint("lost")
    conversation.append(Message.user("lost"))
    conversation.rewind(checkpoint.id)
    conversation.move_head(None, "clear")
    with SessionStore(db_path) as store:
        assert store.list() == []


# ------------------------------------------------------------------- /rewind after /coder


def test_rewind_after_coder_puts_back_the_command_as_typed(world: World) -> None:
    (world.alpha / "notes.txt").write_text("the bug is here\n")
    world.server.script(Reply(tool_calls=[ToolCall("read", {"path": "notes.txt"})]),
                        Reply(text="Found it."))
    world.run(world.alpha, "--provider", "openai", "-p",
              "/coder --max-steps 5 fix the bug\nin notes.txt")
    assert any("fix the bug" in str(m["content"])
               for m in world.server.requests[0].json["messages"] if m["role"] == "user")
    rewound = world.run(world.alpha, "-c", "-p", "/rewind last conversation")
    assert rewound.returncode == 0, rewound.stderr
    # one line, not wrapped at 80 columns though stdout is no terminal
    assert ("Rewound to before “/coder --max-steps 5 fix the bug” (" in rewound.stdout)
    line = next(x for x in rewound.stdout.splitlines() if x.startswith("Rewound"))
    assert line.endswith("the message is back in the input. /rewind undo goes back."), line
    assert ("(your message, to send again if you want: /coder --max-steps 5 fix the bug\n"
            "in notes.txt)") in rewound.stderr


#: (checkpoint label, text sent, the command put back in front of it)
PREFIXES = [
    ("/coder fix the bug", "fix the bug", "/coder "),
    ("/coder --max-steps 5 fix it", "fix it", "/coder --max-steps 5 "),
    ("/agent " + "x" * 73, "x" * 200, "/agent "),  # the label cut at 80 characters
    ("fix the bug", "fix the bug", ""),  # typed as a message
    ("/coder fix", "/coder fix", ""),  # the text itself is the command
    ("/coder something else", "fix the bug", ""),  # the label does not hold the text
    ("/coder ", "", ""),
]


@pytest.mark.parametrize(("label", "text", "prefix"), PREFIXES)
def test_command_prefix(label: str, text: str, prefix: str) -> None:
    assert command_prefix(label, text) == prefix


@given(st.sampled_from(["/coder", "/agent", "/run", "/coder --max-steps 3"]),
       st.text(min_size=1).filter(lambda t: t.strip() == t and not t.startswith("/")
                                  and t.splitlines() and t.splitlines()[0] == t.split("\n")[0]))
def test_the_command_put_back_is_what_was_typed(command: str, task: str) -> None:
    typed = f"{command} {task}"
    label = typed.splitlines()[0][:80]
    assert command_prefix(label, task) + task == typed


# ------------------------------------------------------------------------------- small parts


def test_non_terminal_output_is_not_wrapped(world: World) -> None:
    done = world.run(world.alpha, "-p", "/session")
    lines = done.stdout.splitlines()
    assert any(line.startswith("sessions: /session new") and line.endswith("search TEXT")
               for line in lines), done.stdout


AGES = [(0, "just now"), (59, "just now"), (60, "1 min ago"), (3599, "59 min ago"),
        (3600, "1 h ago"), (86_399, "23 h ago"), (86_400, "1 d ago"), (29 * 86_400, "29 d ago")]


@pytest.mark.parametrize(("seconds", "shown"), AGES)
def test_age(seconds: int, shown: str) -> None:
    assert age(1_000_000_000 - seconds, now=1_000_000_000) == shown


def test_folders_are_shown_with_the_home_folder_as_a_tilde(monkeypatch: pytest.MonkeyPatch,
                                                            tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert shown_folder(str(tmp_path.resolve())) == "~"
    assert shown_folder(str(tmp_path.resolve() / "src" / "app")) == "~/src/app"
    assert shown_folder("/elsewhere") == "/elsewhere" and shown_folder(None) == "-"
    assert current_project(str(tmp_path)) == str(tmp_path.resolve())  # home: its own project


def test_session_list_in_the_chat_shows_this_project_and_all_every_project(
        app, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sessions_helpers import new_conversation, turn

    elsewhere = git_repo(tmp_path / "elsewhere")
    monkeypatch.chdir(elsewhere)
    turn(new_conversation(app.host), "a question elsewhere")
    monkeypatch.chdir(git_repo(tmp_path / "here"))
    turn(app.conversation, "a question here")

    mine = app.run("/session list")
    assert "a question here" in mine and "a question elsewhere" not in mine
    assert "(1 in other projects: /session list --all)" in mine
    every = app.run("/session list --all")
    lines = [line for line in every.splitlines() if "question" in line]
    assert len(lines) == 2 and lines[0].lstrip().startswith("*")  # the current one, newest
    assert str(elsewhere.resolve()) in lines[1] and lines[1].endswith("a question elsewhere")

    app.picks = [1, 1]  # the menu: this project's session, then "every project…", then the 2nd
    app.run("/session load")
    options = app.pick_calls[-2][1]
    assert len(options) == 2 and options[0].startswith("a question here — just now, 2 msgs · ")
    assert options[1] == "every project… (1 more in other projects)"
    assert [o.split(" — ")[0] for o in app.pick_calls[-1][1]] == ["a question here",
                                                                   "a question elsewhere"]
    assert app.conversation.messages()[0].text == "a question elsewhere"
