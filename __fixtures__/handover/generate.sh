#!/usr/bin/env bash
# Regenerates the scheduler selections in this folder by running the autoloop scheduler itself
# (workflows/scripts/autoloop_scheduler.py of githubnext/autoloop) the way its own end-to-end
# tests run it: in an empty work folder, GITHUB_REPOSITORY pointing at a name that does not
# resolve (so the issues and pull request look-ups fail fast and are skipped), and the state
# file read from /tmp/gh-aw/repo-memory/autoloop. The scheduler always writes
# /tmp/gh-aw/autoloop.json; each run's file is copied here unchanged.
#
# Usage: bash __fixtures__/handover/generate.sh <path to a clone of githubnext/autoloop>
set -euo pipefail
autoloop=${1:?usage: generate.sh <path to a clone of githubnext/autoloop>}
here=$(cd "$(dirname "$0")" && pwd)
scheduler="$autoloop/workflows/scripts/autoloop_scheduler.py"
state="$here/../state/coverage.md"
work=$(mktemp -d)
trap 'rm -rf "$work" /tmp/gh-aw' EXIT
if [ -e /tmp/gh-aw ]; then
  echo "/tmp/gh-aw exists: the scheduler writes there; move it away first" >&2
  exit 1
fi

program() {
  mkdir -p "$1/.autoloop/programs"
  cat >"$1/.autoloop/programs/coverage.md" <<'PROGRAM'
---
schedule: every 6h
target-metric: 0.95
---

# coverage

## Goal
Raise line coverage of the core package.

## Target
- src/parser.ts

## Evaluation
```bash
npm run coverage
```

The metric is `coverage_pct`. Higher is better.
PROGRAM
}

# run <name> <work folder> [AUTOLOOP_PROGRAM]
run() {
  (cd "$2" && GITHUB_TOKEN=dummy GITHUB_REPOSITORY=bogus.invalid/bogus AUTOLOOP_PROGRAM=${3:-} \
    python3 "$scheduler" >/dev/null) || true
  cp /tmp/gh-aw/autoloop.json "$here/$1.json"
}

memory=/tmp/gh-aw/repo-memory/autoloop
mkdir -p "$memory"

# A configured program with a state file: selected.
program "$work/selected" && cp "$state" "$memory/coverage.md"
run selection-selected "$work/selected"

# The same program paused, forced by a dispatch (AUTOLOOP_PROGRAM): selected anyway.
program "$work/forced" && sed 's/^| Paused             | false /| Paused             | true  /' "$state" >"$memory/coverage.md"
run selection-forced-paused "$work/forced" coverage

# No program folder: the scheduler bootstraps an unconfigured template and selects none.
rm -f "$memory/coverage.md" && mkdir -p "$work/bootstrap"
run selection-none "$work/bootstrap"

# An empty program folder: no programs at all (a file with no "selected" key).
mkdir -p "$work/empty/.autoloop/programs"
run selection-no-programs "$work/empty"

echo "scheduler: $(git -C "$autoloop" rev-parse HEAD 2>/dev/null || echo unknown), $(python3 --version)"
