#!/bin/sh
# Print the facts that usually matter when a bug depends on the environment.
echo "== system"; uname -a 2>/dev/null
for tool in python3 node go rustc java git; do
    if command -v "$tool" >/dev/null 2>&1; then
        printf '%s: ' "$tool"; "$tool" --version 2>&1 | head -n 1
    fi
done
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "== git"; git log -n 1 --oneline; git status --short | head -n 20
fi
