#!/bin/sh
# Type-check the project with mypy, under the import names it is installed with.
#
# The repository keeps its packages as top-level folders (adjudicator/, events/, ...) and
# installs them as coreflow_judge.adjudicator, coreflow_judge.events, ... (setup.py). mypy
# reads no import hooks and does not know that mapping, so this script lays out a view of
# the folders under the namespace (symbolic links in a temporary directory) and checks the
# packages through it, then the tests, benchmarks and scripts against it.
set -eu
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VIEW="$(mktemp -d "${TMPDIR:-/tmp}/coreflow-typecheck.XXXXXX")"
trap 'rm -rf "$VIEW"' EXIT
mkdir "$VIEW/coreflow_judge"
for folder in adjudicator events projections cli audit serve; do
    ln -s "$ROOT/$folder" "$VIEW/coreflow_judge/$folder"
done
# api/ is the package coreflow_judge itself (its __init__.py and modules).
for file in "$ROOT"/api/*.py "$ROOT"/api/py.typed; do
    ln -s "$file" "$VIEW/coreflow_judge/$(basename "$file")"
done
cd "$ROOT"
MYPYPATH="$VIEW" python -m mypy --cache-dir "$VIEW/.mypy_cache" --explicit-package-bases \
    "$VIEW/coreflow_judge" tests benchmarks scripts "$@"
