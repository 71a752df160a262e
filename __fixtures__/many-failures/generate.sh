#!/usr/bin/env bash
# Regenerates jest-200-failures.txt: what a real jest run printed when 200 tests fail (one
# parametrised test over 200 ranges against an off-by-one parser), stdout and stderr, unedited.
# It is the "hundreds of failing tests" input of the integration tests that bound the fix brief
# and the ledger. jest is the project's own devDependency (the version in package.json).
# Nothing here is written by hand.
#
# Usage: bash __fixtures__/many-failures/generate.sh   (after npm ci)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/app/__tests__" "$work/app/src"
cd "$work/app"
printf '%s\n' '{ "name": "ranges", "version": "1.0.0", "private": true }' >package.json
cat >src/ranges.js <<'JS'
function parseRange(text) {
  const [start, end] = text.split('-').map(Number)
  return { start, end: end - 1 }
}
module.exports = { parseRange }
JS
cat >__tests__/ranges.test.js <<'JS'
const { parseRange } = require('../src/ranges')

const cases = Array.from({ length: 200 }, (_, i) => [`${i}-${i + 2}`, i, i + 2])

describe('parseRange', () => {
  test.each(cases)('parses %s', (text, start, end) => {
    expect(parseRange(text)).toEqual({ start, end })
  })
})
JS
status=0
env -i PATH="$PATH" HOME="$work" TZ=UTC CI=true \
  node "$root/node_modules/jest/bin/jest.js" --ci --runInBand >"$work/out.txt" 2>&1 || status=$?
[ "$status" -ne 0 ] || { echo "jest passed: the fixture needs failing tests" >&2; exit 1; }
if grep -q "$work" "$work/out.txt"; then
  echo "the output names the temporary folder" >&2
  exit 1
fi
cp "$work/out.txt" "$here/jest-200-failures.txt"
echo "jest $(node "$root/node_modules/jest/bin/jest.js" --version): $(grep -c '✕' "$work/out.txt") failing tests"
