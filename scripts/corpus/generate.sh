#!/usr/bin/env bash
# Regenerates the real-tool failure corpus under __fixtures__/corpus/.
#
# It installs the tools (npm packages into the git-ignored .corpus-work/, Debian packages with
# apt-get), builds small broken projects from scripts/corpus/projects/, runs the real tools on
# them several times with noise that must not change the failure's signature, and stores what the
# tools printed, unedited, with a manifest. Nothing a tool prints is written by hand.
#
# Usage: bash scripts/corpus/generate.sh [group...]
#   groups: js python go rust jvm ruby php mixed runtimes cmake next (default: all, after wiping the whole corpus)
# Needs: Debian with apt-get (root or sudo), Node.js with npm and the npm registry; cargo, rustc
# and clippy on PATH for the rust group. Project copies are made under /home/runner/work and /tmp
# (see lib.sh; CORPUS_RUNNER_HOME and CORPUS_TMP_DIR move them).
set -euo pipefail

# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=install.sh
source "$CORPUS_ROOT/install.sh"
for group_file in "$CORPUS_ROOT"/tools/*.sh; do
  # shellcheck disable=SC1090
  source "$group_file"
done

ALL_GROUPS=(js python go rust jvm ruby php mixed runtimes cmake next)
groups=("$@")
if [ ${#groups[@]} -eq 0 ]; then
  groups=("${ALL_GROUPS[@]}")
  rm -rf "${OUT_ROOT:?}" "${META_DIR:?}"
fi
mkdir -p "$OUT_ROOT" "$WORK" "$META_DIR" "$RUNNER_HOME"
# .log files are ignored by the repository's .gitignore; the corpus keeps its job logs.
printf '%s\n' '# Job-log fixtures end in .log and are committed.' '!*.log' >"$OUT_ROOT/.gitignore"

TOOLS_RUN=()
for group in "${groups[@]}"; do
  declare -F "corpus_$group" >/dev/null || die "unknown group '$group' (known: ${ALL_GROUPS[*]})"
  "corpus_$group"
  [ ${#TOOLS_RUN[@]} -gt 0 ] || continue
  node "$CORPUS_ROOT/build-manifest.mjs" "$META_DIR" "$OUT_ROOT" "${TOOLS_RUN[@]}"
done
log "done: $(find "$OUT_ROOT" -type f \( -name '*.txt' -o -name '*.log' \) | wc -l) files in $OUT_ROOT"
