import { describe, expect, test } from '@jest/globals'
import fc from 'fast-check'
import {
  buildKey,
  firstQuotedSymbol,
  maskMessage,
  MAX_KEY_LENGTH,
  normaliseCutPath,
  normalisePath,
  normalisePathsIn,
  stripTrailingDuration
} from '../../../src/core/signature/normalise.js'

describe('normalisePath', () => {
  test.each([
    ['/home/runner/work/shop/shop/src/cart.ts', 'src/cart.ts'],
    ['/Users/runner/work/shop/shop/src/cart.ts', 'src/cart.ts'],
    ['D:\\a\\shop\\shop\\src\\cart.ts', 'src/cart.ts'],
    ['/__w/shop/shop/src/cart.ts', 'src/cart.ts'],
    ['/github/workspace/src/cart.ts', 'src/cart.ts'],
    ['/home/ci/actions-runner/_work/shop/shop/web/src/cart.ts', 'web/src/cart.ts'],
    ['C:\\actions-runner\\_work\\shop\\shop\\web\\cart.ts', 'web/cart.ts'],
    ['/tmp/ci-build-4711/app/src/orders.ts', 'src/orders.ts'],
    ['/tmp/tmp.Xa81/report.ts', 'report.ts'],
    ['/tmp/pytest-of-runner/pytest-12/test_x0/data.txt', 'data.txt'],
    // Temporary directories inside a home: no random folder name stays in the key.
    ['/home/runner/work/_temp/3f2a9c/out.txt', 'out.txt'],
    ['C:\\Users\\dev\\AppData\\Local\\Temp\\abc123\\out.txt', 'out.txt'],
    ['/work/checkout/tests/test_x.py', 'tests/test_x.py'],
    // Jenkins' workspaces: its packages' home, its Docker image's (/var/jenkins_home).
    ['/var/lib/jenkins/workspace/shop-PR-7/src/cart.ts', 'src/cart.ts'],
    ['/var/jenkins_home/workspace/shop_PR-436/web/cart.ts', 'web/cart.ts'],
    ['file:///home/runner/work/a/a/test/util.test.js', 'test/util.test.js'],
    ['./src/a.ts', 'src/a.ts'],
    ['../../src/a.ts', 'src/a.ts'],
    ['src\\nested\\a.ts', 'src/nested/a.ts'],
    [
      'node_modules/.pnpm/left-pad@1.3.0/node_modules/left-pad/index.js',
      'node_modules/left-pad/index.js'
    ]
  ])('%s → %s', (input, expected) => {
    expect(normalisePath(input)).toBe(expected)
  })

  test('the same file under two checkout roots normalises to one path', () => {
    expect(normalisePath('/home/runner/work/app/app/src/orders.ts')).toBe(
      normalisePath('/tmp/ci-build-99/app/src/orders.ts')
    )
  })

  test.each([
    // Under a usual folder of checkouts the next folder is the checkout, whatever follows.
    ['/Users/dev/src/shop/web/src/cart.ts', 'web/src/cart.ts'],
    ['C:\\Users\\dev\\source\\repos\\shop\\web\\cart.ts', 'web/cart.ts'],
    // Folders that group checkouts below it: a host, a language, another usual folder (paths
    // as people's files and logs in public repositories name them).
    ['/Users/dev/dev/github/fathom/fathom.js', 'fathom.js'],
    ['/home/dev/code/rust/rust-analyzer/target/release/deps/xtask', 'target/release/deps/xtask'],
    ['/home/dev/dev/kotlin/recipe-cost-calculator/app/build.gradle.kts', 'app/build.gradle.kts'],
    [
      '/home/dev/code/github.com/buddhi1980/mandelbulber2/mandelbulber2/qt/preferences_dialog.cpp',
      'mandelbulber2/qt/preferences_dialog.cpp'
    ],
    ['/Users/dev/Documents/dev/kotlin/examples/hello/build.gradle.kts', 'hello/build.gradle.kts'],
    // …unless the folder after them starts a project path: the last of them was the checkout.
    ['/home/dev/src/node/lib/fs.js', 'lib/fs.js'],
    ['/home/dev/code/go/internal/x/y.go', 'internal/x/y.go'],
    // A usual folder named like a project folder is still the checkout's parent.
    ['/home/dev/src/lib/index.js', 'index.js'],
    // Any other home folder: a folder that starts a project path two folders down says they were
    // a group and its checkout (paths as people's files in public repositories name them)…
    ['/home/dev/sites/closecall/core/views.py', 'core/views.py'],
    [
      '/Users/dev/Projetos/neondash/client/src/components/dashboard/NeonCRM.tsx',
      'client/src/components/dashboard/NeonCRM.tsx'
    ],
    // …else the depth is unknown, so the path starts at its first project folder.
    ['/Users/dev/DEV/Experiments/shop/src/components/Cart.tsx', 'src/components/Cart.tsx'],
    ['/home/dev/Desktop/shop/tests/test_cart.py', 'tests/test_cart.py'],
    ['/home/dev/shop/node_modules/left-pad/lib/index.js', 'node_modules/left-pad/lib/index.js'],
    ['/home/dev/shop/src/cart.ts', 'src/cart.ts'],
    // …and a path with no project folder is taken as ~/<checkout>/….
    ['/home/dev/shop/main.go', 'main.go'],
    // Caches and toolchains in dot folders are not checkouts.
    [
      '/home/dev/.cargo/registry/src/index.crates.io-6f17/serde-1.0.1/src/de.rs',
      'src/index.crates.io-6f17/serde-1.0.1/src/de.rs'
    ]
  ])('home directory: %s → %s', (input, expected) => {
    expect(normalisePath(input)).toBe(expected)
  })

  test('a project path keeps no folder of a home directory laid out in a way nobody named', () => {
    // Capitalised, so never one of the usual folders of checkouts (src, code, …; Developer and
    // Documents are left out).
    const folder = fc
      .stringMatching(/^[A-Z][A-Za-z0-9-]{0,11}$/)
      .filter((name) => name !== 'Developer' && name !== 'Documents')
    const projectPath = fc
      .tuple(
        fc.constantFrom('src', 'tests', 'lib', 'packages', 'node_modules'),
        fc.array(fc.stringMatching(/^[a-z][a-z0-9_-]{0,11}$/), { maxLength: 3 }),
        fc.stringMatching(/^[a-z][a-z0-9_-]{0,11}\.(?:ts|py|go|rs)$/)
      )
      .map(([first, middle, file]) => [first, ...middle, file].join('/'))
    fc.assert(
      fc.property(
        fc.constantFrom('/Users/dev', '/home/dev', '/root', 'C:/Users/dev'),
        fc.array(folder, { minLength: 1, maxLength: 4 }),
        projectPath,
        (home, folders, path) => {
          expect(normalisePath([home, ...folders, path].join('/'))).toBe(path)
          expect(normalisePath(`/home/runner/work/shop/shop/${path}`)).toBe(path)
        }
      )
    )
  })

  test.each([
    // A path cut by hand to start at the checkout's own folder loses it…
    ['react-schema-form/src/__tests__/ArrayCapture-test.js', 'src/__tests__/ArrayCapture-test.js'],
    ['closecall\\core\\views.py', 'core/views.py'],
    // …but a path that starts at a project folder, or whose second folder starts none, is kept
    // (eslint's own relative file lines, as public threads quote them).
    [
      'app/scripts/stores/__tests__/app-store-test.js',
      'app/scripts/stores/__tests__/app-store-test.js'
    ],
    ['tools\\utils\\compile.js', 'tools/utils/compile.js'],
    ['public/components/eui-loader.js', 'public/components/eui-loader.js'],
    ['./src/actions/MessageActions.js', 'src/actions/MessageActions.js'],
    ['.github/scripts/check.js', '.github/scripts/check.js'],
    // An absolute path is normalised as any other.
    ['/home/runner/work/shop/shop/web/src/cart.ts', 'web/src/cart.ts']
  ])('a path cut by hand: %s → %s', (input, expected) => {
    expect(normaliseCutPath(input)).toBe(expected)
  })

  test('paths inside a message are normalised where they start', () => {
    expect(
      normalisePathsIn("Cannot find module '../src/x' from '/home/runner/work/a/a/test/y.js'")
    ).toBe("Cannot find module '../src/x' from 'test/y.js'")
  })
})

describe('maskMessage', () => {
  test.each([
    ['timeout of 2000ms exceeded', 'timeout of <duration> exceeded'],
    ['finished in 0.00s', 'finished in <duration>'],
    ['expected 5 to be 6', 'expected N to be N'],
    ['at 2026-07-28T23:19:32.4965943Z the job', 'at <time> the job'],
    ['started 23:19:32', 'started <time>'],
    ['connect ECONNREFUSED 127.0.0.1:5432', 'connect ECONNREFUSED <ip>'],
    ['listening on localhost:39211', 'listening on <host>'],
    ['id 3f2b1c9e-8d7a-4b6c-9e5f-0a1b2c3d4e5f gone', 'id <uuid> gone'],
    ['commit 9fceb02d0ae598e95dc970b74767f19372d61af8 missing', 'commit <hex> missing'],
    ['segfault at 0x7ffd5e8c', 'segfault at <hex>'],
    ['see https://example.test/runs/12345?x=1 for more', 'see <url> for more'],
    ['wrote /tmp/tmpa81x9/out.json', 'wrote <tmp>'],
    ['Using --randomly-seed=1234567', 'Using --randomly-seed=N'],
    ['worker 3 crashed', 'worker N crashed'],
    ['test1 and utf8 stay', 'test1 and utf8 stay'],
    ['  many   blanks\tcollapse ', 'many blanks collapse']
  ])('%s → %s', (input, expected) => {
    expect(maskMessage(input)).toBe(expected)
  })

  test('two runs that differ only in noise mask to the same text', () => {
    expect(maskMessage('Timeout after 5012 ms on port 41234 (run 998877)')).toBe(
      maskMessage('Timeout after 5003 ms on port 39012 (run 112233)')
    )
  })

  test('cuts long messages', () => {
    expect(maskMessage('word '.repeat(100), 20)).toHaveLength(19)
  })
})

describe('buildKey', () => {
  test('joins the parts with colons and leaves out empty ones', () => {
    expect(buildKey('tsc', 'TS2339', 'fromArrays', 'src/a.ts')).toBe(
      'tsc:TS2339:fromArrays:src/a.ts'
    )
    expect(buildKey('rustc', 'E0308', undefined, 'src/lib.rs')).toBe('rustc:E0308:src/lib.rs')
  })

  test('never contains a pipe, a newline or # before a digit, whatever the parts', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 5 }), (parts) => {
        const key = buildKey('tool', ...parts)
        expect(key).not.toMatch(/[|\n\r]|#\d/)
        expect(key.length).toBeLessThanOrEqual(MAX_KEY_LENGTH)
      })
    )
  })

  test('a key longer than the cap is cut and keeps a hash of the whole key', () => {
    const a = buildKey('pytest', `tests/test_x.py::test_y[${'p'.repeat(200)}-1]`)
    const b = buildKey('pytest', `tests/test_x.py::test_y[${'p'.repeat(200)}-2]`)
    expect(a.length).toBeLessThanOrEqual(MAX_KEY_LENGTH)
    expect(a).toMatch(/~[0-9a-f]{8}$/)
    expect(a).not.toBe(b)
  })

  test('phpunit-style data-set numbers do not become issue links', () => {
    expect(buildKey('x', 'with data set #3')).toBe('x:with data set # 3')
  })
})

describe('message helpers', () => {
  test('firstQuotedSymbol takes the first quoted identifier', () => {
    expect(firstQuotedSymbol("Property 'fromArrays' does not exist on type 'typeof Stats'.")).toBe(
      'fromArrays'
    )
    expect(firstQuotedSymbol("Type '\"a\"' is not assignable to type 'number'.")).toBe('a')
    expect(firstQuotedSymbol('no method named `fix` found')).toBe('fix')
    expect(firstQuotedSymbol('mismatched types')).toBeUndefined()
  })

  test('stripTrailingDuration removes the durations test reporters append', () => {
    expect(stripTrailingDuration('adds numbers (12 ms)')).toBe('adds numbers')
    expect(stripTrailingDuration('adds numbers (0.9698ms)')).toBe('adds numbers')
    expect(stripTrailingDuration('adds numbers [0.12ms]')).toBe('adds numbers')
    expect(stripTrailingDuration('src/a.test.ts (8.518 s)')).toBe('src/a.test.ts')
    expect(stripTrailingDuration('renders the map 57ms')).toBe('renders the map')
    expect(stripTrailingDuration('works for 3 users')).toBe('works for 3 users')
  })
})
