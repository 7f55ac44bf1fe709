"""chatcli-repomap: the model knows where it is.

Two plugins of one distribution: ``environment`` (the working folder, project root, OS, shell and
git state, once per session) and ``repomap`` (a ranked map of the repository's definitions, cut
to a token budget; the whole map through ``context_pull``). See the README.
"""
