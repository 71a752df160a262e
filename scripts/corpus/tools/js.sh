# JavaScript and TypeScript tools: tsc, eslint, jest, vitest, mocha, node --test (sourced).

corpus_js() {
  install_node_tools
  corpus_tsc
  corpus_eslint
  corpus_jest
  corpus_vitest
  corpus_mocha
  corpus_node_test
  corpus_webpack
}

corpus_tsc() {
  want_tool tsc || return 0
  tools_begin tsc
  TOOLS_RUN+=(tsc)
  tool_version tsc "$("$NODE_TOOLS/node_modules/.bin/tsc" --version)"
  local class description
  for class in missing-property assignment-type unknown-name; do
    case $class in
      missing-property) description="TS2339: src/report.ts calls stats.fromArrays, which the stats object does not have" ;;
      assignment-type) description="TS2322: src/report.ts assigns a template string to a variable typed number" ;;
      unknown-name) description="TS2304: src/report.ts calls formatMean, which is declared nowhere" ;;
    esac
    class_begin tsc "$class" tsc "$description"
    variant plain 'baseline: tsc --noEmit -p . without a terminal (plain file(line,col) form)' \
      -- tsc --noEmit -p .
    variant pretty-color 'colour: --pretty forces the pretty file:line:col form with ANSI colour' \
      -- tsc --noEmit -p . --pretty
    variant shifted 'line shift: blank lines and a comment inserted above the failing line' \
      --shift src/report.ts -- tsc --noEmit -p .
    variant tmp-dir 'another working directory under /tmp' --dir tmp -- tsc --noEmit -p .
    variant job-log 'GitHub Actions job log (BOM, timestamps, group header, exit-code trailer) of npx tsc' \
      --job-log 'npx tsc --noEmit -p .' -- tsc --noEmit -p .
  done
}

corpus_eslint() {
  want_tool eslint || return 0
  tools_begin eslint
  TOOLS_RUN+=(eslint)
  tool_version eslint "$("$NODE_TOOLS/node_modules/.bin/eslint" --version)"
  local class description
  for class in unused-var explicit-any prefer-const; do
    case $class in
      unused-var) description="@typescript-eslint/no-unused-vars: src/orders.ts declares discount and never uses it" ;;
      explicit-any) description="@typescript-eslint/no-explicit-any: src/orders.ts types the parameter extra as any" ;;
      prefer-const) description="prefer-const: src/orders.ts declares total with let and never reassigns it" ;;
    esac
    class_begin eslint "$class" eslint "$description"
    variant stylish 'baseline: eslint . with the default stylish formatter, no colour' -- eslint .
    variant color 'colour: --color' -- eslint --color .
    variant shifted 'line shift: blank lines and a comment inserted above the failing line' \
      --shift src/orders.ts -- eslint .
    variant tmp-dir 'another working directory under /tmp (stylish prints absolute paths)' \
      --dir tmp -- eslint .
    variant other-repo-dir 'another runner checkout path, /home/runner/work/other-repo/other-repo' \
      --dir other -- eslint .
    variant job-log 'GitHub Actions job log of npx eslint . run in the runner checkout' \
      --job-log 'npx eslint .' -- eslint .
  done
}

corpus_jest() {
  want_tool jest || return 0
  tools_begin jest
  TOOLS_RUN+=(jest)
  tool_version jest "$("$NODE_TOOLS/node_modules/.bin/jest" --version)"
  local class description shift_file
  for class in assertion type-error import-failure snapshot-ci ts-type-error; do
    case $class in
      assertion)
        description="expect(total([2, 3])).toBe(6) fails in __tests__/cart.test.js (cart › total › adds the prices of two items)"
        shift_file=__tests__/cart.test.js ;;
      type-error)
        description="TypeError reading 'name' of undefined inside src/customer.js, thrown in one test of __tests__/customer.test.js"
        shift_file=__tests__/customer.test.js ;;
      import-failure)
        description="__tests__/invoice.test.js requires ../src/invoice-format, which does not exist: the suite fails to run"
        shift_file=__tests__/invoice.test.js ;;
      snapshot-ci)
        description="toMatchSnapshot in __tests__/receipt.test.js has no stored snapshot and --ci refuses to write it"
        shift_file=__tests__/receipt.test.js ;;
      ts-type-error)
        description="ts-jest: TS2339 stats.fromArrays does not exist in __tests__/stats.test.ts, so the suite fails to run"
        shift_file=__tests__/stats.test.ts ;;
    esac
    class_begin jest "$class" jest "$description"
    variant in-band 'baseline: jest --ci --runInBand, no colour' -- jest --ci --runInBand
    variant rerun 'another run of the baseline command (durations differ)' -- jest --ci --runInBand
    variant workers 'parallel: two workers, so suites finish in another order' -- jest --ci --maxWorkers=2
    variant color 'colour: FORCE_COLOR=1 with --colors' --env FORCE_COLOR=1 -- jest --ci --runInBand --colors
    variant shifted 'line shift: blank lines and a comment inserted at the top of the failing test file' \
      --shift "$shift_file" -- jest --ci --runInBand
    variant tmp-dir 'another working directory under /tmp' --dir tmp -- jest --ci --runInBand
    variant job-log 'GitHub Actions job log of npx jest --ci with FORCE_COLOR=1, as many workflows set' \
      --env FORCE_COLOR=1 --job-log 'npx jest --ci' -- jest --ci
  done
}

corpus_vitest() {
  want_tool vitest || return 0
  tools_begin vitest
  TOOLS_RUN+=(vitest)
  tool_version vitest "$("$NODE_TOOLS/node_modules/.bin/vitest" --version)"
  local class description shift_file
  for class in assertion thrown-error import-failure timeout; do
    case $class in
      assertion)
        description="expect(slugify('Hello World')).toBe('hello_world') fails in test/slug.test.js (slugify > joins words with underscores)"
        shift_file=test/slug.test.js ;;
      thrown-error)
        description="RangeError 'quantity must be positive' thrown by src/text.js in one test of test/order.test.js"
        shift_file=test/order.test.js ;;
      import-failure)
        description="test/tax.test.js imports ../src/tax.js, which does not exist: the file fails to load"
        shift_file=test/tax.test.js ;;
      timeout)
        description="test/stock.test.js awaits a promise that never settles: the test times out after 200 ms"
        shift_file=test/stock.test.js ;;
    esac
    class_begin vitest "$class" vitest "$description"
    variant run 'baseline: vitest run, no colour' -- vitest run
    variant rerun 'another run of the baseline command (durations differ)' -- vitest run
    variant no-file-parallelism 'files run one after another instead of in parallel workers' \
      -- vitest run --no-file-parallelism
    variant shuffle 'another test order: --sequence.shuffle with a fixed seed' \
      -- vitest run --sequence.shuffle --sequence.seed=20260728
    variant color 'colour: FORCE_COLOR=1' --env FORCE_COLOR=1 -- vitest run
    variant shifted 'line shift: blank lines and a comment inserted at the top of the failing test file' \
      --shift "$shift_file" -- vitest run
    variant tmp-dir 'another working directory under /tmp' --dir tmp -- vitest run
    variant job-log 'GitHub Actions job log of npx vitest run' --job-log 'npx vitest run' -- vitest run
  done
}

corpus_mocha() {
  want_tool mocha || return 0
  tools_begin mocha
  TOOLS_RUN+=(mocha)
  tool_version mocha "$("$NODE_TOOLS/node_modules/.bin/mocha" --version)"
  local class description shift_file
  for class in assertion type-error hook-failure timeout deep-equal; do
    case $class in
      assertion)
        description="assert.strictEqual(count, 6) gets 5 in test/inventory.spec.js (Inventory #add() adds to an existing item)"
        shift_file=test/inventory.spec.js ;;
      deep-equal)
        description="two failures in test/totals.spec.js: assert.deepStrictEqual (Node's diff runs at column 0) in Totals sums the stock of every item, then a TypeError (inventory.describe is not a function) in Totals reports an unknown item as missing"
        shift_file=test/totals.spec.js ;;
      type-error)
        description="TypeError: toFixed of undefined inside src/inventory.js, thrown in one test of test/label.spec.js"
        shift_file=test/label.spec.js ;;
      hook-failure)
        description="the beforeEach hook of test/store.spec.js throws 'unsupported database url'"
        shift_file=test/store.spec.js ;;
      timeout)
        description="test/reload.spec.js awaits a promise that never settles: timeout of 200ms exceeded"
        shift_file=test/reload.spec.js ;;
    esac
    class_begin mocha "$class" mocha "$description"
    variant spec 'baseline: mocha with the spec reporter, no colour' -- mocha
    variant rerun 'another run of the baseline command (durations differ)' -- mocha
    variant parallel 'parallel: --parallel --jobs 2, files run in worker processes' -- mocha --parallel --jobs 2
    variant color 'colour: --color' -- mocha --color
    variant shifted 'line shift: blank lines and a comment inserted at the top of the failing test file' \
      --shift "$shift_file" -- mocha
    variant tmp-dir 'another working directory under /tmp (stack traces show absolute paths)' --dir tmp -- mocha
    variant job-log 'GitHub Actions job log of npx mocha' --job-log 'npx mocha' -- mocha
  done
}

corpus_node_test() {
  want_tool node-test || return 0
  tools_begin node-test
  TOOLS_RUN+=(node-test)
  tool_version node-test "node $(node --version)"
  local class description shift_file
  for class in assertion thrown-error subtest-failure; do
    case $class in
      assertion)
        description="assert.deepEqual(splitBill(10, 3), [3.34, 3.33, 3.33]) fails in test/split.test.js"
        shift_file=test/split.test.js ;;
      thrown-error)
        description="TypeError reading padStart of undefined inside src/money.js, thrown in one test of test/currency.test.js"
        shift_file=test/currency.test.js ;;
      subtest-failure)
        description="nested test bill > parsing > reads a thousands separator fails its assert.equal in test/bill.test.js"
        shift_file=test/bill.test.js ;;
    esac
    class_begin node-test "$class" node-test "$description"
    variant default 'baseline: node --test with the default reporter for a non-terminal' -- node --test
    variant rerun 'another run of the baseline command (durations differ)' -- node --test
    variant spec 'the spec reporter instead of the default one' -- node --test --test-reporter=spec
    variant serial 'one test file at a time: --test-concurrency=1' -- node --test --test-concurrency=1
    variant color 'colour: FORCE_COLOR=1 with the spec reporter' --env FORCE_COLOR=1 \
      -- node --test --test-reporter=spec
    variant shifted 'line shift: blank lines and a comment inserted at the top of the failing test file' \
      --shift "$shift_file" -- node --test
    variant tmp-dir 'another working directory under /tmp' --dir tmp -- node --test
    variant job-log 'GitHub Actions job log of node --test' --job-log 'node --test' -- node --test
  done
}

corpus_webpack() {
  want_tool webpack || return 0
  install_atl_tools
  tools_begin webpack
  TOOLS_RUN+=(webpack)
  tool_version webpack "webpack $(node -p 'require(process.argv[1]).version' "$NODE_TOOLS/node_modules/webpack/package.json") with ts-loader $(node -p 'require(process.argv[1]).version' "$NODE_TOOLS/node_modules/ts-loader/package.json") and fork-ts-checker-webpack-plugin $(node -p 'require(process.argv[1]).version' "$NODE_TOOLS/node_modules/fork-ts-checker-webpack-plugin/package.json"); awesome-typescript-loader 5.2.1 with TypeScript 3.9.10, run through webpack-cli 3.3.12"
  local atl=(--env "ATL_MODULES=$ATL_TOOLS/node_modules" --env NODE_OPTIONS=--openssl-legacy-provider)
  local atl_cli="$ATL_TOOLS/node_modules/webpack-cli/bin/cli.js"
  local class description
  for class in missing-property wrong-argument; do
    case $class in
      missing-property) description="TS2339: src/report.ts calls stats.fromPairs, which the stats object does not have, in a webpack build" ;;
      wrong-argument) description="TS2345: src/report.ts passes the string '2' to stats.round's number parameter, in a webpack build" ;;
    esac
    class_begin webpack "$class" webpack "$description"
    variant ts-loader 'baseline: webpack with ts-loader ([tsl] ERROR in <file>(line,col), code on the next line), no colour' \
      -- webpack --no-color
    variant ts-loader-color 'colour: webpack --color with ts-loader' -- webpack --color
    variant fork-ts-checker 'another checker: ts-loader transpiles, fork-ts-checker-webpack-plugin reports (ERROR in ./file:line:col)' \
      -- webpack --no-color --config webpack.fork.config.js
    variant at-loader 'another loader: awesome-typescript-loader with TypeScript 3.9 (ERROR in [at-loader] ./file:line:col)' \
      "${atl[@]}" -- node "$atl_cli" --config webpack.atl.config.js
    variant shifted 'line shift: blank lines and a comment inserted at the top of src/report.ts' \
      --shift src/report.ts -- webpack --no-color
    variant tmp-dir 'another working directory under /tmp (ts-loader prints absolute paths)' --dir tmp \
      -- webpack --no-color
    variant job-log 'GitHub Actions job log of npx webpack' --job-log 'npx webpack' -- webpack --no-color
  done
}
