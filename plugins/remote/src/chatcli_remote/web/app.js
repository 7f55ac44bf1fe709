// chatcli's web page: talks to `chatcli serve` (the HTTP API and SSE events in
// plugins/remote/README.md). No build step, no dependency: an ES module the server serves as is.
// Everything the server sends is shown through textContent (never innerHTML), so no text of a
// model, a tool or a file can become markup; links are kept only when they are http(s).

const TOKEN_KEY = "chatcli.token";
const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------- words
// The page's texts are English; GET /words.json gives their translations in the server's
// language ({english: translated}, chatcli_remote/web_words.py), loaded before the page starts.

let WORDS = {};
let PLURALS = new Intl.PluralRules("en");

// `english` in the server's language (itself when it has no translation), its `{name}`
// placeholders filled from `values`.
export function t(english, values = {}) {
  const text = Object.hasOwn(WORDS, english) ? WORDS[english] : english;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (Object.hasOwn(values, name) ? String(values[name]) : whole));
}

// A count's text: the English singular and plural are both keys of WORDS (in the server's
// language); which one a count takes is the language's plural rule (the browser's Intl).
export function tn(one, other, count, values = {}) {
  return t(PLURALS.select(count) === "one" ? one : other, { count, ...values });
}

async function loadWords() {
  try {
    const response = await fetch("words.json", { headers: { Accept: "application/json" } });
    if (response.ok) {
      WORDS = await response.json();
      const language = response.headers.get("Content-Language");
      if (language) {
        document.documentElement.lang = language;
        PLURALS = new Intl.PluralRules(language);
      }
    }
  } catch (_) { /* no words: English */ }
}

// The static texts of index.html: data-words (the text; its {slot}s are the element's children
// marked data-slot), data-words-placeholder, data-words-aria-label. Untouched while English.
function translatePage() {
  for (const node of document.querySelectorAll("[data-words]")) {
    const english = node.dataset.words;
    if (t(english) === english) continue;
    const slots = new Map([...node.querySelectorAll("[data-slot]")].map((s) => [s.dataset.slot, s]));
    const parts = t(english).split(/\{(\w+)\}/);
    node.replaceChildren(...parts.map((part, i) => (i % 2 && slots.has(part) ? slots.get(part) : i % 2 ? `{${part}}` : part)));
  }
  for (const [attribute, key] of [["placeholder", "wordsPlaceholder"], ["aria-label", "wordsAriaLabel"]]) {
    for (const node of document.querySelectorAll(`[data-words-${attribute}]`)) {
      node.setAttribute(attribute, t(node.dataset[key]));
    }
  }
}

const state = {
  token: "",
  session: null,          // id of the open session
  lastId: null,           // the last event id shown ("<boot>-<seq>")
  watcher: null,          // AbortController of the events stream
  answer: null,           // the assistant block being streamed (StreamedMarkdown)
  tools: new Map(),       // call_id -> tool card
  questions: new Map(),   // qid -> card
  stale: false,           // the history changed under the page: redraw it after the turn
};

// ---------------------------------------------------------------- HTTP

class HttpError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function api(method, path, body, extra = {}) {
  const headers = { Authorization: `Bearer ${state.token}`, ...extra.headers };
  const init = { method, headers, signal: extra.signal };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  if (response.status === 401) {
    forgetToken(t("The server refused the token (expired or revoked?)."));
    throw new HttpError(401, "unauthorized");
  }
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    try {
      const data = await response.json();
      if (data && data.error && data.error.message) message = data.error.message;
    } catch (_) { /* not JSON */ }
    throw new HttpError(response.status, message);
  }
  return response;
}

async function apiJson(method, path, body) {
  const response = await api(method, path, body);
  return response.status === 204 ? null : response.json();
}

// ---------------------------------------------------------------- SSE over fetch()
// EventSource cannot send an Authorization header, so the stream is read with fetch() and
// cut into events here (the text/event-stream format: fields until a blank line).

export async function readEvents(response, onEvent) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let event = { id: null, kind: "message", data: [] };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = buffer.slice(0, end);
      const size = buffer.startsWith("\r\n", end) ? 2 : 1;
      if (buffer[end] === "\r" && end + 1 === buffer.length) break; // maybe half of a \r\n
      buffer = buffer.slice(end + size);
      if (line === "") {
        if (event.data.length) onEvent({ id: event.id, kind: event.kind, data: event.data.join("\n") });
        event = { id: null, kind: "message", data: [] };
        continue;
      }
      if (line.startsWith(":")) continue; // a comment: the server's ping
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "data") event.data.push(value);
      else if (field === "event") event.kind = value;
      else if (field === "id") event.id = value;
    }
  }
}

function seqOf(id) {
  if (!id) return null;
  const dash = id.lastIndexOf("-");
  return { boot: id.slice(0, dash), seq: Number(id.slice(dash + 1)) };
}

// An event may arrive twice: on the stream of the POST that started a turn and on the
// session's events stream. Both are in order, so anything not newer than the last shown is old.
function isNew(id) {
  if (!id) return true;
  const next = seqOf(id);
  const last = seqOf(state.lastId);
  if (!last || next.boot !== last.boot || next.seq > last.seq) {
    state.lastId = id;
    return true;
  }
  return false;
}

function dispatch(raw) {
  if (!isNew(raw.id)) return;
  let data;
  try {
    data = JSON.parse(raw.data);
  } catch (_) {
    return;
  }
  const handler = HANDLERS[raw.kind];
  if (handler) handler(data);
}

async function watch(sessionId) {
  stopWatching();
  const controller = new AbortController();
  state.watcher = controller;
  let delay = 500;
  while (!controller.signal.aborted && state.session === sessionId) {
    try {
      const headers = state.lastId ? { "Last-Event-ID": state.lastId } : {};
      const response = await api("GET", `/api/sessions/${enc(sessionId)}/events`, undefined,
        { headers, signal: controller.signal });
      setServerState(t("connected"));
      delay = 500;
      await readEvents(response, dispatch);
    } catch (err) {
      if (controller.signal.aborted || (err instanceof HttpError && err.status !== 429 && err.status < 500)) {
        if (err instanceof HttpError && err.status === 404) notice(t("This session is gone."), "error");
        return;
      }
    }
    if (controller.signal.aborted) return;
    setServerState(t("reconnecting…"));
    await sleep(delay);
    delay = Math.min(delay * 2, 10000);
  }
}

function stopWatching() {
  if (state.watcher) state.watcher.abort();
  state.watcher = null;
}

// ---------------------------------------------------------------- markdown
// A small renderer: headings, fenced code, lists, block quotes, paragraphs; inline code,
// **strong**, *emphasis*, [links](https://…). It builds DOM nodes; text stays text.

const FENCE = /^\s{0,3}(```+|~~~+)(.*)$/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const BULLET = /^\s{0,3}([-*+])\s+(.*)$/;
const NUMBERED = /^\s{0,3}(\d{1,9})[.)]\s+(.*)$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;

// Cut markdown text into blocks ({type, lines}); `closed` says whether the last block may
// still grow (an open fence, or text not followed by a blank line).
export function splitBlocks(text) {
  const lines = text.split("\n");
  const blocks = [];
  let current = null;
  let fence = null;
  const flush = () => { if (current) blocks.push(current); current = null; };
  for (const line of lines) {
    if (fence) {
      const close = line.match(FENCE);
      if (close && close[1][0] === fence[0] && close[1].length >= fence.length && !close[2].trim()) {
        current.closed = true;
        fence = null;
        flush();
      } else {
        current.lines.push(line);
      }
      continue;
    }
    const open = line.match(FENCE);
    if (open) {
      flush();
      fence = open[1];
      current = { type: "code", lang: open[2].trim().split(/\s+/)[0] || "", lines: [], closed: false };
      continue;
    }
    if (!line.trim()) { flush(); continue; }
    if (HEADING.test(line) || RULE.test(line)) {
      flush();
      blocks.push({ type: RULE.test(line) ? "rule" : "heading", lines: [line] });
      continue;
    }
    const type = BULLET.test(line) ? "ul" : NUMBERED.test(line) ? "ol" : QUOTE.test(line) ? "quote" : "p";
    if (current && (current.type === type || (type === "p" && current.type !== "code"))) {
      current.lines.push(line);
    } else {
      flush();
      current = { type, lines: [line] };
    }
  }
  flush();
  return blocks;
}

// The offset up to which `text` holds only finished blocks: the end of the last blank line
// outside a code fence (or of a closing fence line).
export function finishedLength(text) {
  let done = 0;
  let fence = null;
  let offset = 0;
  for (const line of text.split("\n")) {
    const end = offset + line.length + 1;
    if (end > text.length) break; // the last line has no newline yet: still growing
    const match = line.match(FENCE);
    if (fence) {
      if (match && match[1][0] === fence[0] && match[1].length >= fence.length && !match[2].trim()) {
        fence = null;
        done = end;
      }
    } else if (match) {
      fence = match[1];
    } else if (!line.trim() || HEADING.test(line)) {
      done = end;
    }
    offset = end;
  }
  return done;
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function safeUrl(url) {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
  } catch (_) {
    return null;
  }
}

const INLINE = /(`+)([\s\S]*?[^`])\1(?!`)|\*\*([^*\n]+?)\*\*|__([^_\n]+?)__|\*([^*\s][^*\n]*?)\*|\b_([^_\s][^_\n]*?)_\b|\[([^\]\n]+)\]\(([^)\s]+)\)|(https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"])/g;

export function renderInline(text, parent) {
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) parent.append(text.slice(last, m.index));
    if (m[2] !== undefined) parent.append(el("code", "", m[2]));
    else if (m[3] !== undefined || m[4] !== undefined) renderInline(m[3] ?? m[4], parent.appendChild(el("strong")));
    else if (m[5] !== undefined || m[6] !== undefined) renderInline(m[5] ?? m[6], parent.appendChild(el("em")));
    else if (m[7] !== undefined || m[9] !== undefined) {
      const href = safeUrl(m[8] ?? m[9]);
      if (href) {
        const a = el("a", "", m[7] ?? m[9]);
        a.href = href;
        a.rel = "noopener noreferrer nofollow";
        a.target = "_blank";
        parent.append(a);
      } else {
        parent.append(m[0]);
      }
    }
    last = m.index + m[0].length;
  }
  if (last < text.length) parent.append(text.slice(last));
  return parent;
}

function renderBlock(block) {
  switch (block.type) {
    case "code": {
      const pre = el("pre", "code");
      const code = el("code", "", block.lines.join("\n"));
      if (/^[\w+-]+$/.test(block.lang)) code.dataset.lang = block.lang;
      pre.append(code);
      return pre;
    }
    case "heading": {
      const m = block.lines[0].match(HEADING);
      return renderInline(m[2], el(`h${Math.min(m[1].length + 1, 6)}`));
    }
    case "rule":
      return el("hr");
    case "ul":
    case "ol": {
      const list = el(block.type);
      const pattern = block.type === "ul" ? BULLET : NUMBERED;
      let item = null;
      for (const line of block.lines) {
        const m = line.match(pattern);
        if (m) {
          item = list.appendChild(el("li"));
          if (block.type === "ol" && list.children.length === 1 && m[1] !== "1") list.start = Number(m[1]);
          renderInline(m[2], item);
        } else if (item) {
          item.append(" ");
          renderInline(line.trim(), item);
        }
      }
      return list;
    }
    case "quote": {
      const text = block.lines.map((l) => (l.match(QUOTE) || [null, l])[1]).join("\n");
      return renderInline(text, el("blockquote"));
    }
    default:
      return renderInline(block.lines.join("\n"), el("p"));
  }
}

export function renderMarkdown(text, parent) {
  for (const block of splitBlocks(text)) parent.append(renderBlock(block));
  return parent;
}

// An answer as it streams: finished blocks are rendered once and stay; only the tail (the
// block still growing) is rendered again, once per animation frame at most — linear in the
// answer's length, not quadratic.
class StreamedMarkdown {
  constructor(parent) {
    this.node = parent.appendChild(el("div", "msg assistant markdown"));
    this.done = this.node.appendChild(el("div", "blocks"));
    this.tail = this.node.appendChild(el("div", "blocks tail"));
    this.text = "";
    this.rendered = 0;  // characters of `text` rendered into `done`
    this.scheduled = false;
  }
  append(delta) {
    this.text += delta;
    if (!this.scheduled) {
      this.scheduled = true;
      requestAnimationFrame(() => this.flush());
    }
  }
  flush() {
    this.scheduled = false;
    const rest = this.text.slice(this.rendered);
    const finished = finishedLength(rest);
    if (finished > 0) {
      renderMarkdown(rest.slice(0, finished), this.done);
      this.rendered += finished;
    }
    this.tail.replaceChildren();
    renderMarkdown(this.text.slice(this.rendered), this.tail);
    scrollDown();
  }
  finish() {
    this.flush();
    this.node.classList.add("finished");
  }
}

// ---------------------------------------------------------------- diffs and cards

function renderDiff(text) {
  const pre = el("pre", "diff");
  for (const line of String(text).replace(/\n$/, "").split("\n")) {
    let cls = "ctx";
    if (line.startsWith("+++") || line.startsWith("---")) cls = "file";
    else if (line.startsWith("+")) cls = "add";
    else if (line.startsWith("-")) cls = "del";
    else if (line.startsWith("@@")) cls = "hunk";
    pre.append(el("span", cls, `${line}\n`));
  }
  return pre;
}

function argsText(args) {
  if (args === undefined || args === null) return "";
  if (typeof args === "string") return args;
  try {
    return JSON.stringify(args, null, 2);
  } catch (_) {
    return String(args);
  }
}

function endAnswer() {
  if (state.answer) state.answer.finish();
  state.answer = null;
}

function card(kind, title) {
  endAnswer();
  const node = $("log").appendChild(el("div", `card ${kind}`));
  const head = node.appendChild(el("div", "card-head"));
  head.append(el("span", "card-title", title));
  scrollDown();
  return node;
}

function toolCard(data) {
  const id = data.call_id || `anon-${state.tools.size}`;
  let node = state.tools.get(id);
  if (!node) {
    node = card("tool", data.name || data.tool || "tool");
    node.dataset.callId = id;
    node.querySelector(".card-head").append(el("span", "card-state muted", t("running")));
    state.tools.set(id, node);
  }
  return node;
}

function answerQuestion(qid, body, buttons) {
  for (const b of buttons) b.disabled = true;
  apiJson("POST", `/api/sessions/${enc(state.session)}/questions/${enc(qid)}`, body)
    .catch((err) => {
      if (err.status !== 409) for (const b of buttons) b.disabled = false;
      notice(err.message, "error");
    });
}

const SCOPES = [
  // the labels are English; shown through t()
  ["once", "Allow once", { allow: true, scope: "once" }],
  ["session", "This session", { allow: true, scope: "session" }],
  ["always", "Always", { allow: true, scope: "always" }],
  ["no", "No", { allow: false }],
];

// ---------------------------------------------------------------- events -> page

const HANDLERS = {
  turn_started() {
    setTurn("running");
  },
  user(data) {
    endAnswer();
    $("log").append(el("div", "msg user", data.text ?? data.message ?? ""));
    scrollDown();
  },
  text(data) {
    if (!state.answer) state.answer = new StreamedMarkdown($("log"));
    state.answer.append(data.delta || "");
  },
  retrying(data) {
    notice(t("retrying in {delay}s: {reason}", { delay: data.delay, reason: data.reason }), "muted");
  },
  tool_started(data) {
    const node = toolCard(data);
    if (data.activity) node.append(el("div", "activity", data.activity));
    const args = argsText(data.args);
    if (args && !data.preview) {
      const details = node.appendChild(el("details", "args"));
      details.append(el("summary", "", t("arguments")), el("pre", "", args));
    }
    if (data.preview) node.append(renderDiff(data.preview));
    scrollDown();
  },
  tool_output(data) {
    const node = toolCard(data);
    let out = node.querySelector("pre.output");
    if (!out) out = node.appendChild(el("pre", "output"));
    out.append(`${data.line}\n`);
    scrollDown();
  },
  tool_finished(data) {
    const node = toolCard(data);
    node.classList.add(data.is_error ? "failed" : "ok");
    let summary = data.is_error ? t("failed") : t("done");
    if (data.added !== undefined || data.removed !== undefined) {
      summary += ` +${data.added ?? 0} −${data.removed ?? 0}`;
    }
    node.querySelector(".card-state").textContent = summary;
    if (data.content) {
      const details = node.appendChild(el("details", "result"));
      details.open = Boolean(data.is_error);
      details.append(el("summary", "", t("result")), el("pre", "", data.content));
    }
    scrollDown();
  },
  approval(data) {
    const title = data.label ? t("{label}: allow {tool}?", { label: data.label, tool: data.tool })
      : t("allow {tool}?", { tool: data.tool });
    const node = card("approval", title);
    node.dataset.qid = data.qid;
    if (data.risk) node.querySelector(".card-head").append(el("span", `risk ${data.risk}`, data.risk));
    if (data.reason) node.append(el("div", "reason", data.reason));
    if (data.preview) node.append(renderDiff(data.preview));
    else {
      const args = argsText(data.args);
      if (args) node.append(el("pre", "args", args));
    }
    const row = node.appendChild(el("div", "buttons"));
    const offered = new Set(data.options || SCOPES.map((s) => s[0]));
    const buttons = [];
    for (const [scope, label, body] of SCOPES) {
      if (!offered.has(scope)) continue;
      const button = el("button", scope === "no" ? "deny" : "allow", t(label));
      button.type = "button";
      button.dataset.scope = scope;
      button.addEventListener("click", () => answerQuestion(data.qid, body, buttons));
      buttons.push(button);
      row.append(button);
    }
    state.questions.set(data.qid, node);
    scrollDown();
  },
  question(data) {
    const node = card("question", data.title || t("choose"));
    node.dataset.qid = data.qid;
    const row = node.appendChild(el("div", "buttons vertical"));
    const buttons = [];
    (data.options || []).forEach((option, index) => {
      const button = el("button", "choice", option);
      button.type = "button";
      button.addEventListener("click", () => answerQuestion(data.qid, { choice: index }, buttons));
      buttons.push(button);
      row.append(button);
    });
    const none = el("button", "deny", t("Cancel"));
    none.type = "button";
    none.addEventListener("click", () => answerQuestion(data.qid, { choice: null }, buttons));
    buttons.push(none);
    row.append(none);
    state.questions.set(data.qid, node);
  },
  answered(data) {
    const node = state.questions.get(data.qid);
    if (!node) return;
    for (const b of node.querySelectorAll("button")) b.disabled = true;
    let what = "answered";
    if (data.allow === true) what = "allowed";
    else if (data.allow === false) what = "denied";
    else if (data.choice !== undefined) what = data.choice === null ? "dismissed" : "chosen";
    node.classList.add("answered", what);
    node.append(el("div", "answer muted", data.by ? t("{what} by {name}", { what: t(what), name: data.by }) : t(what)));
  },
  output(data) {
    endAnswer();
    const text = data.ansi ? stripAnsi(data.text || "") : data.text || "";
    $("log").append(el("pre", "output", text));
    scrollDown();
  },
  compacted(data) { notice(data.line, "muted"); },
  log(data) {
    // the head moved (/rewind, undo… by any client): shown again from a snapshot at the end
    notice(t("history changed: {reason}", { reason: data.reason || "" }), "muted");
    state.stale = true;
  },
  prefill(data) {
    const prompt = $("prompt");
    if (!prompt.value.trim()) prompt.value = data.text || "";
  },
  status(data) { $("turn-state").textContent = (data.items || []).join(" · "); },
  progress(data) {
    const items = (data.items || []).map((i) => `${i.title}: ${i.state}`);
    $("turn-state").textContent = items.join(" · ");
  },
  usage(data) {
    if (data.input_tokens !== undefined) {
      $("session-model").title = t("{input} in, {output} out", { input: data.input_tokens, output: data.output_tokens });
    }
  },
  done(data) {
    endAnswer();
    if (data.error_line) notice(data.error_line, "error");
    if (data.model) $("session-model").textContent = [data.provider, data.model].filter(Boolean).join(" / ");
    const end = $("log").appendChild(el("div", "turn-end muted", data.stop_reason || t("done")));
    end.dataset.stopReason = data.stop_reason || "";
    setTurn("idle");
    scrollDown();
    if (state.stale) reloadSnapshot();
  },
  reset(data) {
    showSnapshot(data.snapshot || {});
  },
};

// ---------------------------------------------------------------- views

function stripAnsi(text) {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)/g, "");
}

function enc(part) { return encodeURIComponent(part); }
function sleep(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }

function scrollDown() {
  const log = $("log");
  log.scrollTop = log.scrollHeight;
}

function notice(text, cls) {
  $("log").append(el("div", `notice ${cls || ""}`, text));
  scrollDown();
}

function setServerState(text) { $("server-state").textContent = text; }

function setTurn(turn) {
  document.body.dataset.turn = turn;
  const running = turn === "running";
  $("turn-state").textContent = running ? t("working…") : "";
  $("cancel").disabled = !running;
  $("send").disabled = running || !state.session;
}

function show(view) {
  document.body.dataset.view = view;
  $("token-view").hidden = view !== "token";
  $("main-view").hidden = view !== "main";
  $("sign-out").hidden = view !== "main";
}

function forgetToken(message) {
  stopWatching();
  sessionStorage.removeItem(TOKEN_KEY);
  state.token = "";
  state.session = null;
  $("token-error").textContent = message || "";
  show("token");
}

function messageText(message) {
  if (typeof message.text === "string") return message.text;
  if (typeof message.content === "string") return message.content;
  return "";
}

function showSnapshot(snapshot) {
  endAnswer();
  state.tools.clear();
  state.questions.clear();
  const log = $("log");
  log.replaceChildren();
  $("session-title").textContent = snapshot.title || snapshot.id || "";
  $("session-model").textContent = [snapshot.provider, snapshot.model].filter(Boolean).join(" / ");
  for (const message of snapshot.messages || []) {
    const text = messageText(message);
    if (message.role === "user" && text) log.append(el("div", "msg user", text));
    else if (message.role === "assistant" && text) renderMarkdown(text, log.appendChild(el("div", "msg assistant markdown finished")));
    for (const call of message.tool_calls || []) {
      const node = log.appendChild(el("div", "card tool ok"));
      node.dataset.callId = call.call_id || "";
      const head = node.appendChild(el("div", "card-head"));
      head.append(el("span", "card-title", call.name || "tool"));
      const args = call.args || {};
      const subject = ["path", "file_path", "command", "pattern", "query", "url"].map((k) => args[k]).find((v) => typeof v === "string");
      if (subject) node.append(el("div", "activity", `${call.name} ${subject}`));
    }
    for (const result of message.tool_results || []) {
      if (!result.is_error) continue;
      const node = [...log.querySelectorAll(".card.tool")].find((n) => n.dataset.callId === result.call_id);
      if (node) node.classList.replace("ok", "failed");
    }
  }
  for (const question of snapshot.questions || []) {
    if (question.kind === "approval" || question.tool) HANDLERS.approval(question);
    else if (question.qid) HANDLERS.question(question);
  }
  setTurn(snapshot.running ? "running" : "idle");
  scrollDown();
}

async function reloadSnapshot() {
  state.stale = false;
  // a busy server may refuse a moment (429) or drop the request: try again before saying so
  for (const pause of [0, 500, 1000, 2000, 4000]) {
    if (pause) await new Promise((done) => setTimeout(done, pause));
    try {
      showSnapshot(await apiJson("GET", `/api/sessions/${enc(state.session)}`));
      return;
    } catch (err) {
      if (pause === 4000) notice(t("the history could not be reloaded: {error}", { error: err.message || err }), "error");
    }
  }
}

async function loadSessions() {
  const data = await apiJson("GET", "/api/sessions");
  const list = $("sessions");
  list.replaceChildren();
  for (const s of data.sessions || []) {
    const item = list.appendChild(el("li"));
    const button = item.appendChild(el("button", "session", s.title || s.id));
    button.type = "button";
    button.dataset.id = s.id;
    if (s.id === state.session) button.classList.add("current");
    const meta = [s.messages !== undefined ? tn("{count} message", "{count} messages", s.messages) : "",
      s.running ? t("running") : s.live ? t("live") : ""];
    item.append(el("span", "muted small", meta.filter(Boolean).join(" · ")));
    button.addEventListener("click", () => openSession(s.id));
  }
  setServerState(t("connected"));
}

async function openSession(id) {
  stopWatching();
  state.session = id;
  state.lastId = null;
  state.stale = false;
  const snapshot = await apiJson("GET", `/api/sessions/${enc(id)}`);
  showSnapshot(snapshot);
  if (snapshot.last_event) state.lastId = String(snapshot.last_event);
  for (const b of document.querySelectorAll("#sessions button.session")) {
    b.classList.toggle("current", b.dataset.id === id);
  }
  $("prompt").disabled = false;
  $("send").disabled = Boolean(snapshot.running);
  $("prompt").focus();
  watch(id);
}

async function newSession() {
  const data = await apiJson("POST", "/api/sessions", {});
  const session = data.session || data;
  await openSession(session.id);
  loadSessions().catch(() => {});
}

async function send(text) {
  const id = state.session;
  // "/cost" is a slash command (run at the server); "//etc" sends the message "/etc"
  const command = text.startsWith("/") && !text.startsWith("//");
  const path = command ? "commands" : "messages";
  const body = command ? { line: text, width: 100, color: false }
    : { text: text.startsWith("//") ? text.slice(1) : text };
  setTurn("running");
  try {
    const response = await api("POST", `/api/sessions/${enc(id)}/${path}`, body);
    await readEvents(response, dispatch);
  } catch (err) {
    if (err instanceof HttpError && err.status !== 401) {
      notice(err.message, "error");
      if (err.status === 409) return; // another client's turn: the events stream shows it
      setTurn("idle");
    }
    // a broken stream: the turn goes on at the server; the events stream shows the rest
  }
}

async function connect(token) {
  state.token = token;
  try {
    await loadSessions();
  } catch (err) {
    if (!(err instanceof HttpError && err.status === 401)) {
      $("token-error").textContent = t("Cannot reach the server: {error}", { error: err.message });
    }
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  $("token").value = "";
  $("token-error").textContent = "";
  show("main");
}

async function init() {
  await loadWords();
  translatePage();
  state.token = sessionStorage.getItem(TOKEN_KEY) || "";
  $("token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const token = $("token").value.trim();
    if (token) connect(token);
  });
  $("sign-out").addEventListener("click", () => forgetToken(""));
  $("new-session").addEventListener("click", () => newSession().catch((err) => notice(err.message, "error")));
  $("refresh-sessions").addEventListener("click", () => loadSessions().catch(() => {}));
  $("prompt-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("prompt").value.trim();
    if (!text || !state.session || document.body.dataset.turn === "running") return;
    $("prompt").value = "";
    send(text);
  });
  $("prompt").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      $("prompt-form").requestSubmit();
    }
  });
  $("cancel").addEventListener("click", () => {
    if (state.session) apiJson("POST", `/api/sessions/${enc(state.session)}/cancel`).catch((err) => notice(err.message, "error"));
  });
  if (state.token) connect(state.token);
  else show("token");
}

if (typeof document !== "undefined") init();
