# Installers for scripts/corpus/generate.sh (sourced). Versions are pinned so that a re-run
# produces the same tool output; a maintainer bumps them here on purpose.

NODE_PACKAGES=(
  typescript@5.9.3
  eslint@10.15.0
  @eslint/js@10.0.1
  typescript-eslint@8.73.0
  jest@30.5.2
  ts-jest@29.4.15
  vitest@4.1.12
  mocha@12.0.3
  webpack@5.112.2
  webpack-cli@7.3.1
  ts-loader@9.6.2
  fork-ts-checker-webpack-plugin@9.1.0
)

# awesome-typescript-loader (unmaintained since 2018) needs an older TypeScript and webpack-cli 3, so
# it gets a folder of its own; webpack-cli 3 then runs the project's webpack. get-intrinsic is held
# at 1.2.4: later releases load an ES module that webpack-cli 3's compile cache cannot require.
ATL_PACKAGES=(
  webpack@4.47.0
  webpack-cli@3.3.12
  awesome-typescript-loader@5.2.1
  typescript@3.9.10
)
ATL_OVERRIDES='{"get-intrinsic":"1.2.4"}'

install_node_tools() {
  local stamp="$NODE_TOOLS/.installed"
  if [ -f "$stamp" ] && [ -d "$NODE_TOOLS/node_modules" ] && [ "$(cat "$stamp")" = "${NODE_PACKAGES[*]}" ]; then
    return
  fi
  log "installing npm packages into $NODE_TOOLS"
  rm -rf "$NODE_TOOLS"
  mkdir -p "$NODE_TOOLS"
  printf '{ "name": "corpus-tools", "private": true }\n' >"$NODE_TOOLS/package.json"
  (cd "$NODE_TOOLS" && npm install --no-audit --no-fund --loglevel=error "${NODE_PACKAGES[@]}") >&2
  printf '%s' "${NODE_PACKAGES[*]}" >"$stamp"
}

install_atl_tools() {
  local stamp="$ATL_TOOLS/.installed"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${ATL_PACKAGES[*]} $ATL_OVERRIDES" ]; then
    return
  fi
  log "installing awesome-typescript-loader into $ATL_TOOLS"
  rm -rf "$ATL_TOOLS"
  mkdir -p "$ATL_TOOLS"
  printf '{ "name": "corpus-atl-tools", "private": true, "overrides": %s }\n' "$ATL_OVERRIDES" \
    >"$ATL_TOOLS/package.json"
  (cd "$ATL_TOOLS" && npm install --no-audit --no-fund --loglevel=error "${ATL_PACKAGES[@]}") >&2
  printf '%s' "${ATL_PACKAGES[*]} $ATL_OVERRIDES" >"$stamp"
}

# The runtimes group's tools and the next group's, each in a folder of their own so that the js
# group's stay as they are.
RUNTIME_PACKAGES=(
  bun@1.4.5
  deno@2.9.6
  @playwright/test@1.65.1
  vite@8.3.8
  @biomejs/biome@2.6.8
)
NEXT_PACKAGES=(
  next@15.5.4
  react@19.3.1
  react-dom@19.3.1
  typescript@5.9.3
  @types/react@19.3.3
  @types/node@20.19.43
  eslint@9.39.5
  eslint-config-next@15.5.4
  @eslint/eslintrc@3.3.7
)

# install_npm_tools <folder> <package...>: installs the packages into <folder> unless the same
# list is there already.
install_npm_tools() {
  local folder=$1
  shift
  local stamp="$folder/.installed"
  if [ -f "$stamp" ] && [ -d "$folder/node_modules" ] && [ "$(cat "$stamp")" = "$*" ]; then
    return
  fi
  log "installing npm packages into $folder"
  rm -rf "$folder"
  mkdir -p "$folder"
  printf '{ "name": "corpus-tools", "private": true }\n' >"$folder/package.json"
  (cd "$folder" && npm install --no-audit --no-fund --loglevel=error "$@") >&2
  printf '%s' "$*" >"$stamp"
}

install_runtime_tools() { install_npm_tools "$RUNTIME_TOOLS" "${RUNTIME_PACKAGES[@]}"; }
install_next_tools() { install_npm_tools "$NEXT_TOOLS" "${NEXT_PACKAGES[@]}"; }

APT_UPDATED=''
# install_debian <package...>: installs the packages that are not installed yet.
install_debian() {
  local missing=() package
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' ||
      missing+=("$package")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  local sudo=()
  [ "$(id -u)" = 0 ] || sudo=(sudo)
  if [ -z "$APT_UPDATED" ]; then
    "${sudo[@]}" apt-get update -qq >&2
    APT_UPDATED=1
  fi
  log "apt-get install ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >&2
}

# debian_available <package>: true when apt knows an installable candidate.
debian_available() {
  local candidate
  candidate="$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p')"
  [ -n "$candidate" ] && [ "$candidate" != '(none)' ]
}
