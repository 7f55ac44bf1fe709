"""chatcli-skills-core: chatcli's first skill pack: commit messages, code review, writing tests."""
