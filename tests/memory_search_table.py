"""The memory search table both backends run (tests/memory/test_search_stems.py and
tests/memory_postgres/test_postgres_stems.py): query -> the fact it finds first."""

FACTS = {
    "mem_test": "pytest is the test framework",
    "mem_deploy": "we deploy to staging on fridays",
    "mem_lint": "ruff lints and formats the code",
}

#: query -> the fact it must find first (one line per variation: stems, any word, stopwords)
FINDS = [
    ("what test framework", "mem_test"),
    ("what testing frameworks", "mem_test"),
    ("tests", "mem_test"),
    ("Framework?", "mem_test"),
    ("deploying", "mem_deploy"),
    ("when are deploys", "mem_deploy"),
    ("linting", "mem_lint"),
    ("formatted code", "mem_lint"),
]
#: queries that must find nothing
NOTHING = ["what", "kubernetes", "what kubernetes"]
