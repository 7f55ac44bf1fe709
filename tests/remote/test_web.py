"""The web page of ``chatcli serve`` in a real headless Chromium (Debian's ``chromium`` and
``chromium-driver``, driven by selenium; the Service path is always given, so selenium's own
manager downloads nothing): the token, a new session, a message, the streamed answer rendered as
markdown, the coder's edit asked for with its diff, "Allow once", the turn's end — against a real
``chatcli serve`` process on chatcli-testing's OpenAI wire server.

One screenshot, taken while the answer and the approval card are both on screen, is decoded
(PNG by hand: zlib and the five row filters) and each card's rectangle must hold more than one
colour — text was drawn there — and the approval card the diff's green and red.
"""

from __future__ import annotations

import json
import re
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chatcli_testing import OpenAIServer, Reply, ToolCall
from remote_support import ServeProcess, frames, until

pytestmark = pytest.mark.slow

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")

ANSWER = """## Plan

I will read **notes.txt**, then change `hello` to *goodbye*:

1. read the file
2. edit it

```python
print("<b>not markup</b>")
```

See [the docs](https://example.com/docs) but not [this](javascript:alert(1)).

"""


def script(wire: OpenAIServer) -> None:
    """An answer in markdown that reads notes.txt, then the coder's edit, then a last word."""
    wire.script(
        Reply(text=ANSWER, chunk_size=7, delay=0.01,
              tool_calls=[ToolCall("read", {"path": "notes.txt"})]),
        Reply(tool_calls=[ToolCall("edit", {"path": "notes.txt", "old": "hello",
                                             "new": "goodbye"})]),
        Reply(text="notes.txt now says **goodbye**."),
    )


# ------------------------------------------------------------------------------ the browser


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    """Headless Chromium through chromedriver (both from Debian)."""
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        pytest.fail("no Chromium here: apt-get install chromium chromium-driver",
                    pytrace=False)
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--window-size=1280,1000", "--force-device-scale-factor=1",
                 f"--user-data-dir={tmp_path / 'chromium'}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _wait(driver: Any, what: str, check: Any, timeout: float = 60) -> Any:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    try:  # an element the page redrew between finding and reading it, or one not drawn yet
        # (`_css(d, "#token")[0]` while the page loads): look again
        return WebDriverWait(driver, timeout, poll_frequency=0.1,
                             ignored_exceptions=[StaleElementReferenceException, IndexError]
                             ).until(lambda d: check(d))
    except Exception as err:  # TimeoutException: say what was awaited and what the page shows
        body = driver.find_element("tag name", "body").text
        raise AssertionError(f"waited for {what}; the page shows:\n{body}") from err


def _css(driver: Any, selector: str) -> list[Any]:
    return list(driver.find_elements("css selector", selector))


# ------------------------------------------------------------------------------ PNG by hand


def decode_png(data: bytes) -> tuple[int, int, int, list[bytes]]:
    """(width, height, bytes per pixel, rows) of an 8-bit RGB/RGBA, non-interlaced PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, [], b""
    while pos < len(data):
        (size,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + size]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + size
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
    bpp = 4 if colour == 6 else 3
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        row = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 1:
            for i in range(bpp, stride):
                row[i] = (row[i] + row[i - bpp]) & 0xFF
        elif kind == 2:
            row = bytearray((a + b) & 0xFF for a, b in zip(row, previous, strict=True))
        elif kind == 3:
            for i in range(stride):
                left = row[i - bpp] if i >= bpp else 0
                row[i] = (row[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                a = row[i - bpp] if i >= bpp else 0
                b = previous[i]
                c = previous[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(row))
        previous = row
    return width, height, bpp, rows


def colours_in(png: tuple[int, int, int, list[bytes]], rect: dict[str, float]
               ) -> set[tuple[int, int, int]]:
    """The distinct RGB colours inside ``rect`` (an element's rect, CSS pixels at scale 1)."""
    width, height, bpp, rows = png
    x0, y0 = max(0, int(rect["x"])), max(0, int(rect["y"]))
    x1 = min(width, int(rect["x"] + rect["width"]))
    y1 = min(height, int(rect["y"] + rect["height"]))
    found: set[tuple[int, int, int]] = set()
    for y in range(y0, y1):
        row = rows[y]
        for x in range(x0, x1):
            i = x * bpp
            found.add((row[i], row[i + 1], row[i + 2]))
    return found


# ------------------------------------------------------------------------------ the test


def test_the_page_runs_a_turn_with_an_approval(server: ServeProcess, token: str, root: Path,
                                               wire: OpenAIServer, browser: Any,
                                               tmp_path: Path) -> None:
    (root / "notes.txt").write_text("hello\n")
    script(wire)
    driver = browser
    driver.get(server.url + "/")
    assert driver.title == "chatcli"

    # the token, kept in the tab's sessionStorage only
    _wait(driver, "the token field", lambda d: _css(d, "#token")[0].is_displayed())
    driver.find_element("id", "token").send_keys(token)
    driver.find_element("id", "token-save").click()
    _wait(driver, "the sessions view", lambda d: _css(d, "#new-session")[0].is_displayed())
    assert driver.execute_script("return sessionStorage.getItem('chatcli.token')") == token
    assert driver.execute_script("return localStorage.length") == 0

    # a new session, and a message
    driver.find_element("id", "new-session").click()
    _wait(driver, "the prompt", lambda d: d.find_element("id", "prompt").is_enabled())
    driver.find_element("id", "prompt").send_keys("change hello to goodbye in notes.txt")
    driver.find_element("id", "send").click()

    # the streamed answer, as markdown; the read ran without asking; the edit asks
    approval = _wait(driver, "the approval card",
                     lambda d: (_css(d, ".card.approval button[data-scope='once']") or [None])[0])
    answer = _css(driver, ".msg.assistant")[0]
    assert answer.find_element("css selector", "h3").text == "Plan"
    assert answer.find_element("css selector", "strong").text == "notes.txt"
    assert answer.find_element("css selector", "em").text == "goodbye"
    assert [li.text for li in answer.find_elements("css selector", "ol li")] == [
        "read the file", "edit it"]
    code = answer.find_element("css selector", "pre.code code")
    assert code.text == 'print("<b>not markup</b>")'  # shown as text, not made markup
    assert not answer.find_elements("css selector", "b")
    links = answer.find_elements("css selector", "a")
    assert [a.get_attribute("href") for a in links] == ["https://example.com/docs"]
    assert "[this](javascript:alert(1))" in answer.text
    read = _css(driver, ".card.tool")[0]
    assert "read notes.txt" in read.text
    card = _css(driver, ".card.approval")[0]
    assert "edit" in card.find_element("css selector", ".card-title").text
    assert [s.text for s in card.find_elements("css selector", "pre.diff .del")] == ["-hello"]
    assert [s.text for s in card.find_elements("css selector", "pre.diff .add")] == ["+goodbye"]
    assert [b.text for b in card.find_elements("css selector", "button")] == [
        "Allow once", "This session", "Always", "No"]
    assert (root / "notes.txt").read_text() == "hello\n"

    # one screenshot with the answer and the approval on screen
    _wait(driver, "the answer to be fully drawn",
          lambda d: "finished" in (answer.get_attribute("class") or ""))
    shot = tmp_path / "web-approval.png"
    assert driver.save_screenshot(str(shot))
    data = shot.read_bytes()
    assert len(data) > 20_000, len(data)
    png = decode_png(data)
    answer_colours = colours_in(png, answer.rect)
    card_colours = colours_in(png, card.rect)
    assert len(answer_colours) > 8, answer_colours
    assert len(card_colours) > 8, card_colours
    greens = {c for c in card_colours if c[1] > c[0] + 20 and c[1] > c[2] + 10}
    reds = {c for c in card_colours if c[0] > c[1] + 15 and c[0] > c[2] + 10}
    assert greens and reds, "the diff's lines are not coloured"

    # allow once: the edit runs, the model's last word, the turn's end
    approval.click()
    _wait(driver, "the turn's end", lambda d: _css(d, ".turn-end"))
    assert "allowed" in card.get_attribute("class")
    assert all(not b.is_enabled() for b in card.find_elements("css selector", "button"))
    assert (root / "notes.txt").read_text() == "goodbye\n"
    last = _css(driver, ".msg.assistant")[-1]
    assert last.find_element("css selector", "strong").text == "goodbye"
    edit = next(c for c in _css(driver, ".card.tool") if "edit" in c.text)
    assert "+1 −1" in edit.find_element("css selector", ".card-state").text
    assert driver.execute_script("return document.body.dataset.turn") == "idle"

    # the page ran clean: no script error, no CSP violation
    severe = [entry["message"] for entry in driver.get_log("browser")
              if entry["level"] == "SEVERE"]
    assert not severe, severe
    # the model got the edit's result
    assert any("edited notes.txt" in json.dumps(r.json) for r in wire.requests)


def _sign_in(driver: Any, server: ServeProcess, token: str) -> None:
    driver.get(server.url + "/")
    _wait(driver, "the token field", lambda d: _css(d, "#token")[0].is_displayed())
    driver.find_element("id", "token").send_keys(token)
    driver.find_element("id", "token-save").click()
    _wait(driver, "the sessions view", lambda d: _css(d, "#new-session")[0].is_displayed())


def _open_listed(driver: Any, sid: str) -> None:
    button = _wait(driver, "the session in the list",
                   lambda d: (_css(d, f"#sessions button[data-id='{sid}']") or [None])[0])
    button.click()
    _wait(driver, "the prompt", lambda d: d.find_element("id", "prompt").is_enabled())


def test_the_page_follows_another_clients_turn_and_survives_a_reload(
        server: ServeProcess, token: str, root: Path, wire: OpenAIServer, browser: Any) -> None:
    wire.script(
        Reply(text="The first answer, with **bold** text."),
        Reply(text="Let me change it.", tool_calls=[ToolCall("write", {
            "path": "bye.txt", "content": "bye\n"})]),
        Reply(text="Not written: *denied*."),
        Reply(text="word " * 400, chunk_size=5, delay=0.05),
    )
    driver = browser
    with server.client(token) as other:
        made = other.post("/api/sessions", json={})
        assert made.status_code == 201, made.text
        sid = made.json()["id"]
        with other.stream("POST", f"/api/sessions/{sid}/messages",
                          json={"text": "first question"}) as response:
            until(frames(response.iter_lines()))

        # a session made elsewhere: listed, and opened from its snapshot
        _sign_in(driver, server, token)
        _open_listed(driver, sid)
        assert [m.text for m in _css(driver, ".msg.user")] == ["first question"]
        first = _css(driver, ".msg.assistant")[0]
        assert first.find_element("css selector", "strong").text == "bold"

        # another client's turn shows up live (the page's events stream), its approval too;
        # the other client answers it and the page's buttons go
        with other.stream("POST", f"/api/sessions/{sid}/messages",
                          json={"text": "second question"}) as response:
            stream = frames(response.iter_lines())
            approval = until(stream, "approval")[-1]
            card = _wait(driver, "the approval card",
                         lambda d: (_css(d, f".card.approval[data-qid='{approval.data['qid']}']")
                                    or [None])[0])
            assert [s.text for s in card.find_elements("css selector", "pre.diff .add")] == [
                "+bye"]
            answered = other.post(f"/api/sessions/{sid}/questions/{approval.data['qid']}",
                                  json={"allow": False})
            assert answered.status_code == 204, answered.text
            until(stream)
        _wait(driver, "the turn's end", lambda d: len(_css(d, ".turn-end")) == 1)
        assert "denied" in card.get_attribute("class")
        assert all(not b.is_enabled() for b in card.find_elements("css selector", "button"))
        assert [m.text for m in _css(driver, ".msg.user")] == ["first question",
                                                                "second question"]
        assert _css(driver, ".msg.assistant em")[-1].text == "denied"
        assert not (root / "bye.txt").exists()

    # a reload keeps the token (sessionStorage) and shows the same conversation once
    driver.refresh()
    _wait(driver, "the sessions view", lambda d: _css(d, "#new-session")[0].is_displayed())
    _open_listed(driver, sid)
    assert [m.text for m in _css(driver, ".msg.user")] == ["first question", "second question"]
    assert len(_css(driver, ".msg.assistant")) == 3

    # a long answer stopped with Cancel
    driver.find_element("id", "prompt").send_keys("talk for a while")
    driver.find_element("id", "send").click()
    _wait(driver, "the answer to start", lambda d: "word" in (
        (_css(d, ".msg.assistant") or [None])[-1].text if len(_css(d, ".msg.assistant")) > 3
        else ""))
    driver.find_element("id", "cancel").click()
    end = _wait(driver, "the cancelled turn's end",
                lambda d: (_css(d, ".turn-end") or [None])[-1])
    assert end.get_attribute("data-stop-reason") not in ("", "end_turn")
    assert len(_css(driver, ".msg.assistant")[-1].text.split()) < 400
    assert driver.execute_script("return document.body.dataset.turn") == "idle"
    severe = [entry["message"] for entry in driver.get_log("browser")
              if entry["level"] == "SEVERE"]
    assert not severe, severe


def test_a_slash_command_from_the_page_asks_its_menu_and_redraws_the_history(
        server: ServeProcess, token: str, wire: OpenAIServer, browser: Any) -> None:
    wire.script(Reply(text="the first answer"), Reply(text="the second answer"))
    driver = browser
    _sign_in(driver, server, token)
    driver.find_element("id", "new-session").click()
    for text in ("first question", "second question"):
        _wait(driver, "the prompt", lambda d: d.find_element("id", "send").is_enabled())
        driver.find_element("id", "prompt").send_keys(text)
        driver.find_element("id", "send").click()
        count = 1 if text.startswith("first") else 2
        _wait(driver, "the turn's end", lambda d, n=count: len(_css(d, ".turn-end")) == n)

    # /rewind runs at the server; its menu is a card whose buttons answer it
    _wait(driver, "the prompt", lambda d: d.find_element("id", "send").is_enabled())
    driver.find_element("id", "prompt").send_keys("/rewind")
    driver.find_element("id", "send").click()
    menu = _wait(driver, "the menu", lambda d: (_css(d, ".card.question") or [None])[0])
    choice = next(b for b in menu.find_elements("css selector", "button.choice")
                  if "second question" in b.text)
    choice.click()
    # the history is drawn again without the second exchange; its text is back in the prompt
    _wait(driver, "the history without the second question",
          lambda d: [m.text for m in _css(d, ".msg.user")] == ["first question"])
    assert [m.text for m in _css(driver, ".msg.assistant")] == ["the first answer"]
    assert driver.find_element("id", "prompt").get_attribute("value") == "second question"
    severe = [entry["message"] for entry in driver.get_log("browser")
              if entry["level"] == "SEVERE"]
    assert not severe, severe


def _page_words(driver: Any) -> dict[str, Any]:
    """The token view's texts as drawn (after the page's words are loaded)."""
    _wait(driver, "the token field", lambda d: _css(d, "#token")[0].is_displayed())
    return {"connect": driver.find_element("id", "token-save").text,
            "label": driver.find_element("css selector", "label[for='token']").text,
            "hint": driver.find_element("css selector", "#token-form p.muted").text,
            "codes": [c.text for c in _css(driver, "#token-form p.muted code")],
            "placeholder": driver.find_element("id", "prompt").get_attribute("placeholder"),
            "sessions": driver.find_element("css selector", "nav.sidebar"
                                            ).get_attribute("aria-label")}


def test_the_page_speaks_the_servers_language(server: ServeProcess, home: Path, root: Path,
                                              token: str, wire: OpenAIServer, browser: Any,
                                              tmp_path: Path) -> None:
    from remote_support import serve_env

    driver = browser
    # English: exactly as before
    driver.get(server.url + "/")
    assert _page_words(driver) == {
        "connect": "Connect", "label": "Server token",
        "hint": "Made with chatcli serve token create. Kept in this tab only (sessionStorage), "
                "sent as Authorization: Bearer.",
        "codes": ["chatcli serve token create", "Authorization: Bearer"],
        "placeholder": "Message, or /command — Enter sends, Shift+Enter is a new line",
        "sessions": "Sessions"}
    assert driver.find_element("css selector", "html").get_attribute("lang") == "en"

    # a server started in Brazilian Portuguese: its page too
    wire.script(Reply(text="Vou escrever.", tool_calls=[ToolCall("write", {
        "path": "bye.txt", "content": "bye\n"})]), Reply(text="Não escrevi."))
    portuguese = ServeProcess(tmp_path, serve_env(home, wire, CHATCLI_LANG="pt_BR"),
                              root).start()
    try:
        driver.get(portuguese.url + "/")
        words = _page_words(driver)
        assert words == {
            "connect": "Conectar", "label": "Token do servidor",
            "hint": "Criado com chatcli serve token create. Fica só nesta aba (sessionStorage) "
                    "e é enviado como Authorization: Bearer.",
            "codes": ["chatcli serve token create", "Authorization: Bearer"],
            "placeholder": "Mensagem ou /comando — Enter envia, Shift+Enter quebra a linha",
            "sessions": "Sessões"}, words
        assert driver.find_element("css selector", "html").get_attribute("lang") == "pt-BR"
        # a refused token, said in Portuguese
        driver.find_element("id", "token").send_keys("not-a-token")
        driver.find_element("id", "token-save").click()
        _wait(driver, "the refusal", lambda d: d.find_element("id", "token-error").text)
        assert driver.find_element("id", "token-error").text == (
            "O servidor recusou o token (expirado ou revogado?).")
        _sign_in(driver, portuguese, token)
        assert driver.find_element("id", "new-session").text == "Nova sessão"
        assert driver.find_element("id", "session-title").text == "Nenhuma sessão aberta"
        driver.find_element("id", "new-session").click()
        _wait(driver, "the prompt", lambda d: d.find_element("id", "prompt").is_enabled())
        assert driver.find_element("id", "send").text == "Enviar"
        driver.find_element("id", "prompt").send_keys("write bye.txt")
        driver.find_element("id", "send").click()
        card = _wait(driver, "the approval card",
                     lambda d: (_css(d, ".card.approval") or [None])[0])
        assert card.find_element("css selector", ".card-title").text == "permitir write?"
        assert [b.text for b in card.find_elements("css selector", "button")] == [
            "Permitir uma vez", "Nesta sessão", "Sempre", "Não"]
        card.find_element("css selector", "button[data-scope='no']").click()
        _wait(driver, "the turn's end", lambda d: _css(d, ".turn-end"))
        assert card.find_element("css selector", ".answer").text == "negada por tests"
        assert "denied" in card.get_attribute("class")  # the classes stay the page's
        assert not (root / "bye.txt").exists()
        # the sessions list counts in Portuguese, the count's form by the language's rule
        driver.find_element("id", "refresh-sessions").click()
        counts = _wait(driver, "the sessions' counts", lambda d: [
            m.text for m in _css(d, "#sessions .muted") if "mensage" in m.text])
        assert all(re.fullmatch(r"(0|1) mensagem|([2-9]|\d\d+) mensagens", c.split(" · ")[0])
                   for c in counts), counts
        severe = [entry["message"] for entry in driver.get_log("browser")
                  if entry["level"] == "SEVERE" and "/api/sessions" not in entry["message"]]
        assert not severe, severe
    finally:
        assert portuguese.stop() == 0, portuguese.log()
