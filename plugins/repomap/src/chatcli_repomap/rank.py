"""Ranking: which definitions matter most, by a graph rank over the files' reference graph.

Files are nodes; a file that uses a name another file defines gets an edge to it, weighted by
how often it uses the name (square root, so one file's repetition does not dominate) and by the
name: one mentioned in the conversation ×10, a long specific one (``snake_case``/``CamelCase``,
8+ characters) ×10, a private one (``_x``) ×0.1, one defined in more than five files (``get``,
``run``) ×0.1, one used by more than a tenth of the files (``name``, ``path``: every file has
such a variable) ×0.1, and shared among the files that define it. Dunder names
(``__init__``, ``__all__``) and names shorter than three characters make no edge. PageRank
with a personalization that favours the files the conversation mentions gives each file a
rank; each file's rank then flows along its edges to the definitions it uses, which ranks the
definitions (aider's scheme).

The rank is a small power iteration, not networkx: the graph has at most a few thousand nodes,
the iteration is twenty lines that converge in a few milliseconds, and networkx would be a
large dependency whose import alone costs more than the whole ranking.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

__all__ = ["pagerank", "rank_definitions"]

#: weight of a file the conversation mentions in the personalization, against 1 for the others
MENTIONED = 100.0


def pagerank(nodes: Iterable[str], edges: Mapping[str, Mapping[str, float]], *,
             personalization: Mapping[str, float] | None = None, damping: float = 0.85,
             tolerance: float = 1.0e-6, max_iterations: int = 100) -> dict[str, float]:
    """The PageRank of each node of a weighted directed graph (``edges[a][b]``: the weight of
    a → b), summing to 1. A node without out-edges gives its rank by the personalization (or
    evenly), as networkx does; so does the random jump."""
    order = list(dict.fromkeys(nodes))
    count = len(order)
    if not count:
        return {}
    if personalization:
        total = sum(max(0.0, personalization.get(n, 0.0)) for n in order)
        jump = ({n: max(0.0, personalization.get(n, 0.0)) / total for n in order} if total > 0
                else dict.fromkeys(order, 1.0 / count))
    else:
        jump = dict.fromkeys(order, 1.0 / count)
    known = set(order)
    out: dict[str, list[tuple[str, float]]] = {}
    for source, targets in edges.items():
        if source not in known:
            continue
        kept = [(t, w) for t, w in targets.items() if t in known and w > 0]
        total = sum(w for _, w in kept)
        if total > 0:
            out[source] = [(t, w / total) for t, w in kept]
    rank = dict.fromkeys(order, 1.0 / count)
    for _ in range(max_iterations):
        dangling = sum(rank[n] for n in order if n not in out)
        new = {n: (1.0 - damping + damping * dangling) * jump[n] for n in order}
        for source, shares in out.items():
            share = damping * rank[source]
            for target, weight in shares:
                new[target] += share * weight
        error = sum(abs(new[n] - rank[n]) for n in order)
        rank = new
        if error < tolerance:
            break
    return rank


def name_weight(name: str, mentioned: bool, defined_in: int, used_in: int = 1,
                files: int = 1) -> float:
    """How much a use of ``name`` counts (see the module's docstring); 0: none."""
    if len(name) < 3 or (name.startswith("__") and name.endswith("__")):
        return 0.0
    weight = 1.0
    if mentioned:
        weight *= 10.0
    is_snake = "_" in name.strip("_") and any(c.isalpha() for c in name)
    is_camel = any(c.isupper() for c in name[1:]) and any(c.islower() for c in name)
    if (is_snake or is_camel) and len(name) >= 8:
        weight *= 10.0
    if name.startswith("_"):
        weight *= 0.1
    if defined_in > 5:
        weight *= 0.1
    if used_in > max(5, files // 10):
        weight *= 0.1
    return weight


def rank_definitions(defines: Mapping[str, Iterable[str]],
                     uses: Mapping[str, Mapping[str, int]], *, files: Iterable[str],
                     mentioned_files: Iterable[str] = (), mentioned_names: Iterable[str] = ()
                     ) -> tuple[dict[tuple[str, str], float], dict[str, float]]:
    """Rank each (file, name) definition and each file.

    :param defines: name → the files that define it.
    :param uses: file → {name: times it uses it}.
    :param files: every file (files without edges still get a rank).
    :return: ({(file, name): rank}, {file: rank}).
    """
    chosen = set(mentioned_files)
    names_said = set(mentioned_names)
    definers = {name: sorted(set(found)) for name, found in defines.items()}
    files = list(files)
    users: dict[str, int] = {}
    for counts in uses.values():
        for name in counts:
            if name in definers:
                users[name] = users.get(name, 0) + 1
    weights = {name: name_weight(name, name in names_said, len(definers[name]), used,
                                 len(files)) for name, used in users.items()}
    edges: dict[str, dict[str, float]] = {}
    # referencing file → [(defining file, name, weight)]
    flows: dict[str, list[tuple[str, str, float]]] = {}
    for user, counts in uses.items():
        for name, times in counts.items():
            base = weights.get(name)
            if not base:
                continue
            where = definers[name]
            weight = base * math.sqrt(times)
            if user in chosen:
                weight *= 10.0
            share = weight / len(where)
            for target in where:
                if target == user:
                    continue
                edges.setdefault(user, {})
                edges[user][target] = edges[user].get(target, 0.0) + share
                flows.setdefault(user, []).append((target, name, share))
    nodes = list(dict.fromkeys([*files, *edges]))
    personal = {n: (MENTIONED if n in chosen else 1.0) for n in nodes}
    ranks = pagerank(nodes, edges, personalization=personal)
    scores: dict[tuple[str, str], float] = {}
    for user, items in flows.items():
        total = sum(w for _, _, w in items)
        if total <= 0:
            continue
        for target, name, weight in items:
            key = (target, name)
            scores[key] = scores.get(key, 0.0) + ranks[user] * weight / total
    return scores, ranks
