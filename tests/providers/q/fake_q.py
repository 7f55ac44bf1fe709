"""A stand-in for the Amazon Q CLI (``q``), written into a test's PATH as an executable.

It prints what the real ``q chat`` prints (crates/chat-cli of aws/amazon-q-developer-cli): the
braille logo, the "Did you know?" box, the shortcut line, the ``━`` rule and "You are chatting
with" on stderr; the "Thinking..." braille spinner redrawn with carriage returns and erased with
``CSI 2K`` + ``CSI 1G``; the answer on stdout after a green ``> ``, in colour, a few words per
write; in interactive mode (the daemon) the magenta input prompt, read lines with ``\\``
continuation (kept in the input, as rustyline's validator does), ``/quit``, and SIGINT stopping
an answer.

Behaviour is chosen by variables:

- ``FAKE_Q_LOG``: a JSON-lines file; each start writes ``{"pid", "argv", "cwd"}``, each question
  ``{"pid", "input"}``;
- ``FAKE_Q_MODE``: ``ok`` (default), ``notloggedin``, ``quota``, ``approval``, ``exit3``,
  ``empty``, ``garbage``, ``hang``, ``crash`` (dies in the middle of the answer), ``ask_at_start``
  (the daemon asks a y/n question before its prompt),
  ``crash_once`` / ``exit_once`` (with ``FAKE_Q_ONCE`` a marker file: the first process dies on
  its first question / right after its prompt, later ones answer);
- ``FAKE_Q_STATE``: a folder where ``--resume`` finds the previous questions of a directory;
- ``FAKE_Q_PROMPT`` (``> `` by default; e.g. ``[dev] 6% !> ``; printed only with ``TERM=dumb``,
  as rustyline does when stdin is a pipe), ``FAKE_Q_NO_PROMPT=1`` (print no prompt at all),
  ``FAKE_Q_BANNER_STDOUT=1`` (greeting and spinner on stdout, as ``2>&1`` gives),
  ``FAKE_Q_DELAY`` (seconds between writes, default 0.01), ``FAKE_Q_PAUSE`` (seconds of silence
  after the fourth word), ``FAKE_Q_ANSWER`` (the answer text).
"""

import json
import os
import signal
import sys
import time

ESC = "\x1b"
GREEN, MAGENTA, BOLD, RESET = f"{ESC}[32m", f"{ESC}[38;5;141m", f"{ESC}[1m", f"{ESC}[0m"
LOGO = ("⠀⠀⠀⣾⡿⢻⣿⡆⠀⠀⠀⢀⣄⡄⢀⣠⣤⣤⡀⢀⣠⣤⣤⡀⠀⠀⢀⣠⣤⣤⣤⣄⠀⠀\n"
        "⠀⠀⣼⣿⠇⠀⣿⣿⡄⠀⠀⢸⣿⣿⠛⠉⠻⣿⣿⠛⠉⠛⣿⣿⠀⠀⠘⠛⠉⠉⠻⣿⣧⠀\n"
        "⠚⠛⠋⠀⠀⠀⠀⠘⠛⠛⠀⠘⠛⠛⠀⠀⠀⠛⠛⠀⠀⠀⠛⠛⠀⠀⠙⠻⠿⠟⠋⠛⠛⠀\n")
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

MODE = os.environ.get("FAKE_Q_MODE", "ok")
DELAY = float(os.environ.get("FAKE_Q_DELAY", "0.01"))
PROMPT = os.environ.get("FAKE_Q_PROMPT", "> ")
interrupted = False


def log(**record):
    path = os.environ.get("FAKE_Q_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as file:
            file.write(json.dumps({"pid": os.getpid(), **record}) + "\n")


def write(stream, text):
    stream.write(text)
    stream.flush()


def ui():
    """Where the greeting and spinner go."""
    return sys.stdout if os.environ.get("FAKE_Q_BANNER_STDOUT") else sys.stderr


def greeting():
    out = ui()
    write(out, f"{MAGENTA}{LOGO}{RESET}\n\n")
    write(out, "╭─────────────────────────────── Did you know? ────────────────────────────────╮\n"
               "│                                                                              │\n"
               "│     You can resume the last conversation from your current directory by     │\n"
               "│                        launching with q chat --resume                        │\n"
               "│                                                                              │\n"
               "╰──────────────────────────────────────────────────────────────────────────────╯\n")
    write(out, f"\n{GREEN}/help{RESET} all commands  •  {GREEN}ctrl + j{RESET} new lines  •  "
               f"{GREEN}ctrl + s{RESET} fuzzy search\n")
    write(out, f"{ESC}[38;5;8m{'━' * 80}{RESET}\n")
    write(out, f"{MAGENTA}🤖 You are chatting with claude-sonnet-4{RESET}\n\n")


def spinner():
    out = ui()
    write(out, f"{ESC}[?25l")
    for frame in SPINNER[:4]:
        write(out, f"\r{frame} Thinking...")
        time.sleep(DELAY)
    write(out, f"{ESC}[2K{ESC}[1G{ESC}[?25h")


def die_with(code, message):
    write(sys.stderr, f"{ESC}[31m{BOLD}error{RESET}: {message}\n")
    sys.exit(code)


def startup_failure():
    if MODE == "notloggedin":
        die_with(1, f"You are not logged in, please log in with {BOLD}q login{RESET}")
    if MODE == "quota":
        die_with(1, "Request quota exceeded. Please wait a moment and try again.")


def answer_words(question, history, transcript):
    text = os.environ.get("FAKE_Q_ANSWER")
    if text is None:
        current = question.split("Current question: ")[-1]
        text = f"You said: {current}\n\nI know **{history}** earlier questions."
        if transcript:
            text += " I was given a transcript."
    # colour a bold word the way Q's markdown renderer does, a few words per write
    text = text.replace("**", BOLD, 1).replace("**", RESET, 1)
    words = text.split(" ")
    return [w + (" " if i < len(words) - 1 else "") for i, w in enumerate(words)]


def answer(question, history):
    """Print the answer to ``question``: spinner, green marker, coloured words."""
    global interrupted
    interrupted = False
    log(input=question)
    if MODE == "hang":
        while True:
            time.sleep(1)
    spinner()
    if "use a tool" in question and "--trust-all-tools" not in sys.argv:
        write(sys.stderr, f"🛠️  Using tool: fs_read\n{GREEN} ⋮ {RESET}\n\n"
                          "Allow this action? Use 't' to trust (always allow) this tool for the "
                          "session. [y/n/t]:\n\n")
        write(sys.stdout, f"{MAGENTA}!> {RESET}")
        sys.stdin.readline()
        return
    if MODE == "empty":
        return
    if MODE == "garbage":
        sys.stdout.buffer.write(b"\xff\xfe\x1b[38;5;\x9b?\x1b]0;x\x00\x07\x1b(B\x1bP1$r\x1b\\"
                                b"\x0e\x7f\xe2\x82")
        sys.stdout.flush()
        write(sys.stdout, "\n")
    if "read the file" in question:  # a tool use between two parts of the answer
        write(sys.stdout, f"{GREEN}> {RESET}I'll read it.\n\n")
        write(sys.stdout, f"{MAGENTA}🛠️  Using tool: fs_read{GREEN} (trusted){RESET}\n ⋮ \n"
                          " ● Reading file: notes.txt, all lines\n"
                          "the file's own words\n\n"
                          f" ⋮ \n{GREEN}{BOLD} ● Completed in 0.1s{RESET}\n\n")
        write(sys.stderr, f"{ESC}[?25l\n")
        spinner()
    write(sys.stdout, f"{GREEN}> {RESET}")
    words = answer_words(question, history, "Previous conversation:" in question)
    for i, word in enumerate(words):
        if interrupted:
            write(sys.stdout, "\n")
            return
        if MODE == "crash" and i == 2:
            os._exit(70)
        write(sys.stdout, word)
        time.sleep(DELAY)
        if i == 3 and os.environ.get("FAKE_Q_PAUSE"):  # a tool at work, say
            time.sleep(float(os.environ["FAKE_Q_PAUSE"]))
    write(sys.stdout, f"{RESET}\n")


def once():
    """True the first time (the marker file does not exist yet)."""
    marker = os.environ["FAKE_Q_ONCE"]
    if os.path.exists(marker):
        return False
    with open(marker, "w"):
        pass
    return True


def state_file():
    folder = os.environ.get("FAKE_Q_STATE")
    if not folder:
        return None
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, os.getcwd().replace(os.sep, "_") + ".json")


def plain(args):
    resume = "--resume" in args or "-r" in args
    words = [a for a in args if not a.startswith("-")]
    if "--model" in args:
        words.remove(args[args.index("--model") + 1])
    question = words[-1] if words else sys.stdin.read().strip()
    greeting()
    startup_failure()
    if MODE == "approval":
        die_with(1, "Tool approval required but --no-interactive was specified. Use "
                    "--trust-all-tools to automatically approve tools.")
    if MODE == "exit3":
        write(sys.stderr, "Something odd happened\nerror: the flux capacitor is empty\n")
        sys.exit(3)
    path = state_file()
    history = []
    if resume and path and os.path.exists(path):
        with open(path, encoding="utf-8") as file:
            history = json.load(file)
    answer(question, len(history))
    if path:
        with open(path, "w", encoding="utf-8") as file:
            json.dump([*history, question], file)


def on_sigint(_signum, _frame):
    global interrupted
    interrupted = True


def interactive(args):
    signal.signal(signal.SIGINT, on_sigint)
    greeting()
    startup_failure()
    if MODE == "ask_at_start":  # a one-time question of its own (a profile migration, say)
        write(sys.stderr, "Legacy profiles found. Migrate them to agents? [y/N]: ")
        sys.stdin.readline()
    asked = 0
    exit_once = MODE == "exit_once" and once()
    while True:
        # rustyline prints the prompt into a pipe only for terminals it does not support
        if os.environ.get("TERM") in ("dumb", "cons25", "emacs") and \
                not os.environ.get("FAKE_Q_NO_PROMPT"):
            write(sys.stdout, PROMPT)
        if exit_once:
            sys.exit(0)
        lines = []
        while True:
            line = sys.stdin.readline()
            if not line:
                sys.exit(0)
            line = line.rstrip("\n")
            if line.endswith("\\"):  # q's validator: continued (the backslash stays)
                lines.append(line)
                continue
            lines.append(line)
            break
        question = "\n".join(lines)
        if question.strip() == "/quit":
            sys.exit(0)
        if MODE == "crash_once" and once():
            log(input=question)
            os._exit(71)
        write(sys.stderr, "\n")
        answer(question, asked)
        asked += 1
        write(sys.stdout, "\n")


def main():
    args = sys.argv[1:]
    log(argv=args, cwd=os.getcwd())
    if not args or args[0] != "chat":
        write(sys.stderr, "error: unrecognized subcommand\n")
        sys.exit(2)
    if "--no-interactive" in args or "--non-interactive" in args:
        plain(args[1:])
    else:
        interactive(args[1:])


main()
