"""The ranking: PageRank by power iteration, and definitions ranked by what uses them."""

from __future__ import annotations

import pytest
from chatcli_repomap.rank import name_weight, pagerank, rank_definitions
from hypothesis import given, settings
from hypothesis import strategies as st


def test_a_cycle_ranks_every_node_alike() -> None:
    ranks = pagerank("abc", {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}})
    assert ranks == pytest.approx({"a": 1 / 3, "b": 1 / 3, "c": 1 / 3})


def test_a_dangling_node_gives_its_rank_to_every_node() -> None:
    # r_a = 0.15/2 + 0.85 r_b/2, r_b = 0.15/2 + 0.85 (r_a + r_b/2): r_a = 0.5 / 1.425
    ranks = pagerank("ab", {"a": {"b": 1.0}})
    assert ranks["a"] == pytest.approx(0.5 / 1.425, abs=1e-6)
    assert ranks["b"] == pytest.approx(1 - 0.5 / 1.425, abs=1e-6)


def test_weights_and_personalization_move_the_rank() -> None:
    edges = {"a": {"b": 3.0, "c": 1.0}}
    ranks = pagerank("abc", edges)
    assert ranks["b"] > ranks["c"] > ranks["a"]
    favoured = pagerank("abc", edges, personalization={"c": 100.0, "a": 1.0, "b": 1.0})
    assert favoured["c"] > ranks["c"]
    assert pagerank([], {}) == {}


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from("abcdefg"),
                       st.dictionaries(st.sampled_from("abcdefgh"),
                                       st.floats(0, 10, allow_nan=False), max_size=5),
                       max_size=7))
def test_ranks_are_a_distribution_over_the_nodes(edges) -> None:
    nodes = list("abcdefg")
    ranks = pagerank(nodes, edges)
    assert set(ranks) == set(nodes)  # edges to unknown nodes ("h") are dropped
    assert sum(ranks.values()) == pytest.approx(1.0, abs=1e-6)
    assert all(r > 0 for r in ranks.values())


def test_name_weights() -> None:
    assert name_weight("__init__", False, 1) == 0 and name_weight("id", False, 1) == 0
    plain = name_weight("load", False, 1)
    assert name_weight("load", True, 1) == 10 * plain
    assert name_weight("load_account", False, 1) == 10 * plain  # long and specific
    assert name_weight("_load", False, 1) == pytest.approx(0.1 * plain)
    assert name_weight("load", False, 9) == pytest.approx(0.1 * plain)  # defined everywhere
    assert name_weight("load", False, 1, used_in=50, files=100) == pytest.approx(0.1 * plain)


DEFINES = {"UserAccount": ["models.py"], "load_account": ["models.py"],
           "unused_thing": ["models.py"], "show_view": ["views.py"],
           "helper_fn": ["lonely.py"]}
USES = {"views.py": {"UserAccount": 2, "load_account": 1},
        "api.py": {"load_account": 3, "show_view": 1},
        "models.py": {"UserAccount": 1}}
FILES = ["models.py", "views.py", "api.py", "lonely.py"]


def test_what_many_files_use_ranks_first() -> None:
    scores, files = rank_definitions(DEFINES, USES, files=FILES)
    assert files["models.py"] == max(files.values())
    assert scores[("models.py", "load_account")] > scores[("views.py", "show_view")]
    assert ("models.py", "unused_thing") not in scores  # nobody uses it
    assert ("lonely.py", "helper_fn") not in scores


def test_a_mentioned_file_and_name_move_up() -> None:
    plain, plain_files = rank_definitions(DEFINES, USES, files=FILES)
    told, told_files = rank_definitions(DEFINES, USES, files=FILES, mentioned_files=["api.py"])
    # api.py is favoured: what it uses (views.py) gains against what only views.py uses
    assert told_files["api.py"] > plain_files["api.py"]
    assert told[("views.py", "show_view")] > plain[("views.py", "show_view")]
    named, _ = rank_definitions(DEFINES, USES, files=FILES, mentioned_names=["show_view"])
    assert named[("views.py", "show_view")] > plain[("views.py", "show_view")]


def test_a_file_using_its_own_names_makes_no_edge() -> None:
    scores, _ = rank_definitions({"x_name": ["a.py"]}, {"a.py": {"x_name": 5}}, files=["a.py"])
    assert scores == {}
