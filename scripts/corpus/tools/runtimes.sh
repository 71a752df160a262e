# JavaScript runtimes' test runners and build tools from npm: bun test, deno test, Playwright
# Test, vite build, Biome (sourced). Each is an npm package (bun and deno ship their binaries
# as platform packages), installed apart from the js group's tools.

corpus_runtimes() {
  install_runtime_tools
  CLASS_NODE_TOOLS=$RUNTIME_TOOLS
  corpus_bun
  corpus_deno
  corpus_playwright
  corpus_vite
  corpus_biome
  CLASS_NODE_TOOLS=''
}

corpus_bun() {
  want_tool bun || return 0
  tools_begin bun
  TOOLS_RUN+=(bun)
  tool_version bun "bun $("$RUNTIME_TOOLS/node_modules/.bin/bun" --version)"
  local class description shift_file
  for class in assertion thrown same-title; do
    case $class in
      assertion)
        description="expect(total([2, 3])).toBe(5) fails in test/cart.test.ts (cart > adds the prices of two items)"
        shift_file=test/cart.test.ts ;;
      thrown)
        description="TypeError reading 'name' of undefined thrown in test/customer.test.ts (labels a missing customer)"
        shift_file=test/customer.test.ts ;;
      same-title)
        description="two files each have a test titled 'adds'; only test/discount.test.ts's fails"
        shift_file=test/discount.test.ts ;;
    esac
    class_begin bun "$class" bun "$description"
    variant default 'baseline: bun test, no terminal' -- bun test
    variant rerun 'another run of the baseline command (durations differ)' -- bun test
    variant color 'colour: FORCE_COLOR=1' --env FORCE_COLOR=1 -- bun test
    variant shifted 'line shift: blank lines and a comment inserted at the top of the failing test file' \
      --shift "$shift_file" -- bun test
    variant tmp-dir 'another working directory under /tmp' --dir tmp -- bun test
    variant job-log 'GitHub Actions job log of bun test (CI=true: each file in a ::group::, ::error annotations)' \
      --env GITHUB_ACTIONS=true --job-log 'bun test' -- bun test
  done
}

corpus_deno() {
  want_tool deno || return 0
  tools_begin deno
  TOOLS_RUN+=(deno)
  tool_version deno "$("$RUNTIME_TOOLS/node_modules/.bin/deno" --version | head -n 1)"
  # deno caches what it compiles under $HOME (the runner home), outside the repository.
  local class description shift_file
  for class in assertion thrown step; do
    case $class in
      assertion)
        description="assertEquals(total([2, 3]), 5) throws an AssertionError in cart_test.ts (adds the prices of two items)"
        shift_file=cart_test.ts ;;
      thrown)
        description="TypeError reading 'name' of undefined in customer_test.ts (labels a missing customer)"
        shift_file=customer_test.ts ;;
      step)
        description="the step 'rejects a negative quantity' of the test 'order' fails in order_test.ts"
        shift_file=order_test.ts ;;
    esac
    class_begin deno "$class" deno "$description"
    variant default 'baseline: deno test, no terminal' -- deno test --no-check
    variant rerun 'another run of the baseline command (durations differ)' \
      -- deno test --no-check
    variant type-check 'type-checked first (deno test without --no-check)' -- deno test
    variant shifted 'line shift: blank lines and a comment inserted at the top of the failing test file' \
      --shift "$shift_file" -- deno test --no-check
    variant tmp-dir 'another working directory under /tmp' --dir tmp -- deno test --no-check
    variant job-log 'GitHub Actions job log of deno test' --job-log 'deno test' \
      -- deno test --no-check
  done
}

corpus_playwright() {
  want_tool playwright || return 0
  tools_begin playwright
  TOOLS_RUN+=(playwright)
  tool_version playwright "$("$RUNTIME_TOOLS/node_modules/.bin/playwright" --version)"
  local class description shift_file
  for class in assertion thrown describe; do
    case $class in
      assertion)
        description="expect(total([2, 3])).toBe(5) fails in tests/cart.spec.ts (cart › adds the prices of two items)"
        shift_file=tests/cart.spec.ts ;;
      thrown)
        description="TypeError reading 'name' of undefined in tests/customer.spec.ts (labels a missing customer)"
        shift_file=tests/customer.spec.ts ;;
      describe)
        description="nested describes: checkout › shipping › is free above 50 fails in tests/checkout.spec.ts"
        shift_file=tests/checkout.spec.ts ;;
    esac
    class_begin playwright "$class" playwright "$description"
    variant list 'baseline: playwright test --reporter=list' -- playwright test --reporter=list
    variant line 'the line reporter (progress overwritten on one line)' -- playwright test --reporter=line
    variant retries 'one retry (--retries=1): each failure is reported twice, Retry #1 in its block' \
      -- playwright test --reporter=list --retries=1
    variant shifted 'line shift: blank lines and a comment inserted at the top of the failing test file' \
      --shift "$shift_file" -- playwright test --reporter=list
    variant tmp-dir 'another working directory under /tmp' --dir tmp -- playwright test --reporter=list
    variant job-log 'GitHub Actions job log of npx playwright test (CI=true; the default reporter)' \
      --job-log 'npx playwright test' -- playwright test
  done
}

corpus_vite() {
  want_tool vite || return 0
  tools_begin vite
  TOOLS_RUN+=(vite)
  tool_version vite "$("$RUNTIME_TOOLS/node_modules/.bin/vite" --version)"
  local class description
  for class in unresolved-import syntax-error; do
    case $class in
      unresolved-import) description="src/main.ts imports price-format, which is not installed" ;;
      syntax-error) description="src/main.ts misses the closing parenthesis of a reduce call" ;;
    esac
    class_begin vite "$class" vite "$description"
    variant default 'baseline: vite build, no terminal' -- vite build
    variant rerun 'another run of the baseline command (durations differ)' -- vite build
    variant color 'colour: FORCE_COLOR=1' --env FORCE_COLOR=1 -- vite build
    variant tmp-dir 'another working directory under /tmp' --dir tmp -- vite build
    variant job-log 'GitHub Actions job log of npx vite build' --job-log 'npx vite build' -- vite build
  done
}

corpus_biome() {
  want_tool biome || return 0
  tools_begin biome
  TOOLS_RUN+=(biome)
  tool_version biome "$("$RUNTIME_TOOLS/node_modules/.bin/biome" --version)"
  local class description command
  for class in lint-error format; do
    case $class in
      lint-error)
        description="lint/suspicious/noExplicitAny (set to error): src/orders.ts types items as any[]"
        command=lint ;;
      format)
        description="src/orders.ts is indented with four spaces where Biome's formatter prints two"
        command=format ;;
    esac
    class_begin biome "$class" biome "$description"
    variant default "baseline: biome $command ." -- biome "$command" .
    variant color 'colour: --colors=force' -- biome "$command" --colors=force .
    variant shifted 'line shift: blank lines and a comment inserted at the top of src/orders.ts' \
      --shift src/orders.ts -- biome "$command" .
    variant tmp-dir 'another working directory under /tmp' --dir tmp -- biome "$command" .
    variant job-log "GitHub Actions job log of npx biome $command ." --job-log "npx biome $command ." \
      -- biome "$command" .
  done
}
