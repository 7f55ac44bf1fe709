"""What the full-text search indexes and asks: words made here, in Python, not by PostgreSQL.

PostgreSQL's text-search parser depends on the server's locale (under ``C`` every non-ASCII
character is a letter, under ``C.UTF-8`` some are nothing at all) and reads ``file.py`` or
``v1.2`` as one token, so the same search could find different messages on two servers. The
words are therefore cut here, the way the SQLite store's FTS5 ``unicode61`` tokenizer cuts
them — runs of letters and digits (``_`` separates), lower-cased, accents removed — and
stored as a ``tsvector`` of exactly those lexemes (``array_to_tsvector``: no parser, no
stemming); a query becomes a ``tsquery`` of the same lexemes, every word required and the last
one a prefix, as the SQLite store's ``fts_query`` asks FTS5; a word cut into several lexemes
(``foo-bar``) is a phrase, its lexemes next to each other (checked on the candidates the index
gives).

The fallback for any character: a query word holding no letter or digit at all (``→``,
``🙂``, ``::``) cannot be a lexeme; it must then appear in the message's text as it is
(``strpos``). NUL never reaches the server (PostgreSQL's ``text`` cannot hold it): a query's
NUL separates words, as in the SQLite store.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

__all__ = ["MAX_LEXEME_BYTES", "Query", "fold", "lexemes", "parse_query", "snippet",
           "tsquery_text"]

#: PostgreSQL's limit for one lexeme is 2,047 bytes; longer words are not indexed.
MAX_LEXEME_BYTES = 2_000
#: What a message's lexemes may take together (a ``tsvector`` holds at most 1 MB).
MAX_VECTOR_BYTES = 600_000
#: Tokens a snippet shows, as the SQLite store's ``snippet(…, 12)``.
SNIPPET_TOKENS = 12

_TOKEN = re.compile(r"[^\W_]+")


def fold(token: str) -> str:
    """``token`` as indexed: lower case, without accents (``Café`` → ``cafe``)."""
    lowered = token.lower()
    if lowered.isascii():
        return lowered
    decomposed = unicodedata.normalize("NFKD", lowered)
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", stripped) or lowered


def _tokens(text: str) -> list[str]:
    """The folded tokens of ``text`` that can be lexemes, in order."""
    found = []
    for match in _TOKEN.finditer(text):
        for token in _TOKEN.findall(fold(match.group())):  # folding may split (rarely)
            if len(token.encode("utf-8")) <= MAX_LEXEME_BYTES:
                found.append(token)
    return found


def lexemes(text: str) -> list[str]:
    """The distinct lexemes a message's text is searched by (first ones first, up to
    :data:`MAX_VECTOR_BYTES`)."""
    seen: dict[str, None] = {}
    size = 0
    for token in _tokens(text.replace("\x00", " ")):
        if token in seen:
            continue
        size += len(token.encode("utf-8")) + 8
        if size > MAX_VECTOR_BYTES:
            break
        seen[token] = None
    return list(seen)


@dataclass
class Query:
    """A search: the lexemes every match holds (``prefix``: the last one is a prefix), the
    words cut into several lexemes (``phrases``: ``foo-bar``, ``file.py``), whose lexemes must
    follow each other in the text as FTS5 phrases do, and the words without letters or digits,
    each of which the text must contain as given."""

    tokens: list[str] = field(default_factory=list)
    prefix: bool = False
    literals: list[str] = field(default_factory=list)
    phrases: list[list[str]] = field(default_factory=list)
    #: whether the last phrase ends the query (its last lexeme is then a prefix)
    last_phrase_prefix: bool = False

    def __bool__(self) -> bool:
        return bool(self.tokens or self.literals)

    def holds_phrases(self, text: str) -> bool:
        """Whether every phrase's lexemes follow each other somewhere in ``text``."""
        if not self.phrases:
            return True
        words = _tokens(text)
        for index, phrase in enumerate(self.phrases):
            prefix = self.last_phrase_prefix and index == len(self.phrases) - 1
            if not _follows(words, phrase, prefix):
                return False
        return True


def _follows(words: list[str], phrase: list[str], prefix: bool) -> bool:
    size = len(phrase)
    for start in range(len(words) - size + 1):
        if words[start:start + size - 1] == phrase[:-1]:
            last = words[start + size - 1]
            if last == phrase[-1] or (prefix and last.startswith(phrase[-1])):
                return True
    return False


def parse_query(text: str) -> Query:
    """The words of ``text`` as a :class:`Query` (NUL separates words)."""
    query = Query()
    words = text.replace("\x00", " ").split()
    found: list[str] = []
    for index, word in enumerate(words):
        tokens = _tokens(word)
        if tokens:
            found.extend(tokens)
            query.prefix = index == len(words) - 1
            if len(tokens) > 1:
                query.phrases.append(tokens)
                query.last_phrase_prefix = query.prefix
        elif word.strip('"*'):
            query.literals.append(word)
    query.tokens = list(dict.fromkeys(found))
    if query.prefix:  # the prefix goes last (an exact copy of it is implied)
        query.tokens = [t for t in query.tokens if t != found[-1]] + [found[-1]]
    return query


def tsquery_text(query: Query) -> str:
    """The ``tsquery`` input for ``query.tokens`` (lexemes hold letters and digits only, so
    quoting cannot break), or ``""`` when it has none."""
    parts = [f"'{t}'" for t in query.tokens]
    if parts and query.prefix:
        parts[-1] += ":*"
    return " & ".join(parts)


def snippet(text: str, query: Query) -> str:
    """A piece of ``text`` around its matching words, each shown ``[like this]``, cut with
    ``…`` (about :data:`SNIPPET_TOKENS` words, as the SQLite store's FTS5 snippet)."""
    spans = [(m.start(), m.end(), fold(m.group())) for m in _TOKEN.finditer(text)]
    exact = set(query.tokens[:-1] if query.prefix else query.tokens)
    start_with = query.tokens[-1] if query.prefix and query.tokens else None

    def matches(word: str) -> bool:
        return word in exact or (start_with is not None and word.startswith(start_with))

    hits = [i for i, (_, _, word) in enumerate(spans) if matches(word)]
    if not hits:
        literal = query.literals[0] if query.literals else ""
        return _plain_snippet(text, literal)
    width = min(SNIPPET_TOKENS, len(spans))
    best, best_count = 0, -1
    for begin in range(0, len(spans) - width + 1):
        count = sum(1 for i in hits if begin <= i < begin + width)
        if count > best_count:
            best, best_count = begin, count
    end = best + width  # exclusive
    cut_from = 0 if best == 0 else spans[best][0]
    cut_to = len(text) if end == len(spans) else spans[end - 1][1]
    pieces = []
    position = cut_from
    for index in range(best, end):
        s, e, word = spans[index]
        if matches(word):
            pieces.append(text[position:s] + "[" + text[s:e] + "]")
            position = e
    pieces.append(text[position:cut_to])
    return ("…" if best > 0 else "") + "".join(pieces) + ("…" if end < len(spans) else "")


def _plain_snippet(text: str, word: str, width: int = 60) -> str:
    """Sixty characters of ``text`` from just before ``word`` (the SQLite store's LIKE
    fallback's snippet)."""
    at = text.find(word) if word else 0
    start = max(at - width // 2, 0)
    piece = text[start:start + width].replace("\n", " ")
    return ("…" if start else "") + piece + ("…" if start + width < len(text) else "")
