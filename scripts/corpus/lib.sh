# Helpers for scripts/corpus/generate.sh (sourced, not run).
#
# A class is one specific failure of one tool. Each variant runs the real tool again on a fresh copy
# of the class's broken project, with one kind of noise that must not change the failure's signature,
# and stores what the tool printed (stdout and stderr combined, as a CI log shows them) unedited.
#
#   class_begin <tool> <class> <project> "<what is broken>"
#   variant <name> "<noise>" [options] -- <command...>
#
# Options of `variant`:
#   --dir runner|tmp|other   where the project copy lives (default runner: a GitHub-hosted-runner path)
#   --shift <file>           insert blank lines and a comment at the top of <file> in the copy
#                            (repeatable)
#   --env K=V                extra environment for the tool (repeatable)
#   --job-log "<shown cmd>"  wrap the output in the Actions job-log form (file <name>.log)
#   --cut-at <pattern>       keep the output only up to the last line matching <pattern> (a
#                            JavaScript regular expression; that line and the blank lines before
#                            it go): a log that ended there, as a cancelled, timed-out or
#                            size-capped job's log does
#
# Project templates live in scripts/corpus/projects/<project>/common and .../<class>; every file is
# stored with a `.tmpl` suffix so that the repository's own tsc, eslint and prettier never read them.

CORPUS_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$CORPUS_ROOT/../.." && pwd)"
OUT_ROOT="$REPO_ROOT/__fixtures__/corpus"
WORK="${CORPUS_WORK:-$REPO_ROOT/.corpus-work}"
META_DIR="$WORK/meta"
NODE_TOOLS="$WORK/node-tools"
ATL_TOOLS="$WORK/atl-tools"
RUNTIME_TOOLS="$WORK/runtime-tools"
NEXT_TOOLS="$WORK/next-tools"
# The npm tools a class's project borrows (a group sets it for its classes; default: the js group's).
CLASS_NODE_TOOLS=''

# Where the project copies live. Paths printed by the tools include them: that is real noise.
RUNNER_HOME="${CORPUS_RUNNER_HOME:-/home/runner}"
DIR_RUNNER="$RUNNER_HOME/work/app/app"
DIR_TMP="${CORPUS_TMP_DIR:-/tmp/ci-build-4711/app}"
DIR_OTHER="$RUNNER_HOME/work/other-repo/other-repo"

# Toolchains that live under the invoking user's home keep working when HOME is neutral.
ORIG_HOME="$HOME"
RUSTUP_HOME_DIR="${RUSTUP_HOME:-$ORIG_HOME/.rustup}"
CARGO_HOME_DIR="${CARGO_HOME:-$ORIG_HOME/.cargo}"

log() { printf '[corpus] %s\n' "$*" >&2; }
die() {
  printf '[corpus] error: %s\n' "$*" >&2
  exit 1
}

# The clean environment every tool runs in: no variable of this machine or its user leaks in.
tool_env() {
  local project_dir=$1
  local path="$project_dir/node_modules/.bin:$CARGO_HOME_DIR/bin:/usr/lib/go/bin:/usr/local/bin:/usr/bin:/bin"
  local node_dir
  node_dir="$(dirname "$(command -v node)")"
  path="$path:$node_dir"
  printf '%s\n' \
    "PATH=$path" \
    "HOME=$RUNNER_HOME" \
    "USER=runner" \
    "LANG=C.UTF-8" \
    "LC_ALL=C.UTF-8" \
    "TERM=dumb" \
    "TZ=UTC" \
    "RUSTUP_HOME=$RUSTUP_HOME_DIR" \
    "CARGO_HOME=$CARGO_HOME_DIR" \
    "GOPATH=$RUNNER_HOME/go" \
    "GOCACHE=$WORK/go-cache" \
    "GOFLAGS=-mod=mod" \
    "GOPROXY=off" \
    "GOTOOLCHAIN=local" \
    "GOTELEMETRY=off" \
    "PYTHONDONTWRITEBYTECODE=1" \
    "MAVEN_OPTS=-Duser.home=$RUNNER_HOME"
}

# Meta records (JSON lines) that build-manifest.mjs turns into manifest.json.
json_str() { node -e 'process.stdout.write(JSON.stringify(process.argv[1]))' "$1"; }

tools_begin() {
  local tool=$1
  mkdir -p "$META_DIR"
  : >"$META_DIR/$tool.jsonl"
  rm -rf "${OUT_ROOT:?}/$tool"
}

tool_version() {
  local tool=$1 version=$2
  printf '{"kind":"version","tool":%s,"version":%s}\n' "$(json_str "$tool")" "$(json_str "$version")" \
    >>"$META_DIR/$tool.jsonl"
}

tool_unavailable() {
  local tool=$1 why=$2
  mkdir -p "$META_DIR"
  printf '{"kind":"unavailable","tool":%s,"why":%s}\n' "$(json_str "$tool")" "$(json_str "$why")" \
    >"$META_DIR/$tool.jsonl"
  rm -rf "${OUT_ROOT:?}/$tool"
  log "$tool unavailable: $why"
}

CLASS_TOOL=''
CLASS_NAME=''
CLASS_PROJECT=''
class_begin() {
  CLASS_TOOL=$1
  CLASS_NAME=$2
  CLASS_PROJECT=$3
  local description=$4
  [ -d "$CORPUS_ROOT/projects/$CLASS_PROJECT/$CLASS_NAME" ] ||
    [ -d "$CORPUS_ROOT/projects/$CLASS_PROJECT/common" ] ||
    die "no template for $CLASS_PROJECT/$CLASS_NAME under scripts/corpus/projects"
  rm -rf "${OUT_ROOT:?}/$CLASS_TOOL/$CLASS_NAME"
  mkdir -p "$OUT_ROOT/$CLASS_TOOL/$CLASS_NAME"
  printf '{"kind":"class","id":%s,"tool":%s,"description":%s}\n' \
    "$(json_str "$CLASS_TOOL/$CLASS_NAME")" "$(json_str "$CLASS_TOOL")" "$(json_str "$description")" \
    >>"$META_DIR/$CLASS_TOOL.jsonl"
  log "class $CLASS_TOOL/$CLASS_NAME"
}

# Copy common/ then <class>/ of the project template into $1, dropping the .tmpl suffixes.
prepare_project() {
  local dest=$1 part src rel
  rm -rf "$dest"
  mkdir -p "$dest"
  for part in common "$CLASS_NAME"; do
    src="$CORPUS_ROOT/projects/$CLASS_PROJECT/$part"
    [ -d "$src" ] || continue
    while IFS= read -r -d '' rel; do
      rel="${rel#./}"
      mkdir -p "$dest/$(dirname "$rel")"
      cp "$src/$rel" "$dest/${rel%.tmpl}"
    done < <(cd "$src" && find . -type f -print0 | sort -z)
  done
  # A JavaScript project gets node_modules inside itself, as on a CI runner, so that stack frames
  # show project paths: the scratch install is moved in for the run and back afterwards.
  if [ -f "$dest/package.json" ]; then
    BORROWED_FROM="${CLASS_NODE_TOOLS:-$NODE_TOOLS}"
    [ -d "$BORROWED_FROM/node_modules" ] || die "no npm packages in $BORROWED_FROM (run its group)"
    mv "$BORROWED_FROM/node_modules" "$dest/node_modules"
    BORROWED_NODE_MODULES="$dest/node_modules"
  fi
}

BORROWED_NODE_MODULES=''
BORROWED_FROM=''
return_node_modules() {
  [ -n "$BORROWED_NODE_MODULES" ] || return 0
  # Caches a tool wrote there (vitest's results, transform caches) must not leak into the next run.
  rm -rf "$BORROWED_NODE_MODULES/.vite" "$BORROWED_NODE_MODULES/.vitest" "$BORROWED_NODE_MODULES/.cache"
  mv "$BORROWED_NODE_MODULES" "$BORROWED_FROM/node_modules"
  BORROWED_NODE_MODULES=''
}
trap return_node_modules EXIT

# Move every line of a file down: blank lines and a comment in the file's own syntax at the top
# (in PHP, right after the opening `<?php` line, which must stay first).
shift_file() {
  local file=$1 comment='//' keep=0
  case "$file" in
    *.py | *.toml | *.cfg | *.rb) comment='#' ;;
    *.php) keep=1 ;;
  esac
  [ -f "$file" ] || die "cannot shift missing file $file"
  {
    head -n "$keep" "$file"
    # Python's line-length lints (E501, 79 characters) must not see a new failure here.
    printf '\n\n%s Lines inserted above the failure: its line numbers move,\n' "$comment"
    printf '%s the failure does not (a noise variant of the failure corpus).\n\n' "$comment"
    tail -n "+$((keep + 1))" "$file"
  } >"$file.shifted"
  mv "$file.shifted" "$file"
}

variant() {
  local name=$1 noise=$2
  shift 2
  local dir_kind=runner shift_targets=() job_log='' extra_env=() cut_at=''
  while [ $# -gt 0 ]; do
    case "$1" in
      --dir) dir_kind=$2; shift 2 ;;
      --shift) shift_targets+=("$2"); shift 2 ;;
      --env) extra_env+=("$2"); shift 2 ;;
      --job-log) job_log=$2; shift 2 ;;
      --cut-at) cut_at=$2; shift 2 ;;
      --) shift; break ;;
      *) die "variant $name: unknown option $1" ;;
    esac
  done
  [ $# -gt 0 ] || die "variant $name: no command"
  local dir
  case "$dir_kind" in
    runner) dir=$DIR_RUNNER ;;
    tmp) dir=$DIR_TMP ;;
    other) dir=$DIR_OTHER ;;
    *) die "variant $name: unknown --dir $dir_kind" ;;
  esac
  prepare_project "$dir"
  local target
  for target in "${shift_targets[@]}"; do
    shift_file "$dir/$target"
  done

  local ext=txt
  [ -z "$job_log" ] || ext=log
  local rel="$CLASS_TOOL/$CLASS_NAME/$name.$ext"
  local out="$OUT_ROOT/$rel" raw="$WORK/raw-output.txt"
  local env_lines=()
  mapfile -t env_lines < <(tool_env "$dir")
  # A job log comes from a CI runner, which sets CI=true for every step.
  [ -z "$job_log" ] || extra_env+=("CI=true")
  local rc=0
  (cd "$dir" && env -i "${env_lines[@]}" "${extra_env[@]}" "$@") >"$raw" 2>&1 </dev/null || rc=$?
  return_node_modules
  if [ "$rc" = 0 ]; then
    cat "$raw" >&2
    die "$rel: the tool passed, but this class must fail"
  fi
  if [ -n "$cut_at" ]; then
    node "$CORPUS_ROOT/cut-log.mjs" "$cut_at" <"$raw" >"$raw.cut" || die "$rel: no line matches --cut-at $cut_at"
    mv "$raw.cut" "$raw"
  fi
  if [ -n "$job_log" ]; then
    node "$CORPUS_ROOT/wrap-job-log.mjs" --command "$job_log" --exit-code "$rc" --seed "$rel" <"$raw" >"$out"
  else
    cp "$raw" "$out"
  fi
  [ -s "$out" ] || die "$rel: the tool printed nothing"
  printf '{"kind":"file","class":%s,"file":%s,"noise":%s,"exitCode":%s}\n' \
    "$(json_str "$CLASS_TOOL/$CLASS_NAME")" "$(json_str "$rel")" "$(json_str "$noise")" "$rc" \
    >>"$META_DIR/$CLASS_TOOL.jsonl"
  rm -rf "$dir"
}

# CORPUS_TOOLS="jest vitest" limits a run to those tools (the manifest keeps the others' entries).
want_tool() {
  [ -z "${CORPUS_TOOLS:-}" ] && return 0
  case " $CORPUS_TOOLS " in
    *" $1 "*) return 0 ;;
  esac
  return 1
}
