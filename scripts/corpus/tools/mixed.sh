# Logs that are not one tool's (sourced): a job step running eslint then jest (two failures in one
# log, for multi-key signatures), and a step that fails in a plain shell command (for the
# unknown-tool fallback).

corpus_mixed() {
  install_node_tools
  corpus_mixed_lint_and_test
  corpus_shell
}

corpus_mixed_lint_and_test() {
  want_tool mixed || return 0
  tools_begin mixed
  TOOLS_RUN+=(mixed)
  tool_version mixed "eslint $("$NODE_TOOLS/node_modules/.bin/eslint" --version) then jest $("$NODE_TOOLS/node_modules/.bin/jest" --version)"
  local script='status=0; eslint . || status=$?; jest --ci || status=$?; exit $status'
  class_begin mixed eslint-then-jest mixed "one step runs eslint (no-unused-vars: currency in src/cart.js) and then jest (adds shipping to the total fails its toBe) and fails with both"
  variant default 'baseline: eslint . then jest --ci, no colour' -- bash -c "$script"
  variant rerun 'another run of the baseline command (durations differ)' -- bash -c "$script"
  variant color 'colour: FORCE_COLOR=1 (eslint and jest both colour their output)' --env FORCE_COLOR=1 \
    -- bash -c "$script"
  variant shifted 'line shift: blank lines and a comment inserted at the top of src/cart.js and the test' \
    --shift src/cart.js --shift __tests__/cart.test.js -- bash -c "$script"
  variant tmp-dir 'another working directory under /tmp' --dir tmp -- bash -c "$script"
  variant job-log 'GitHub Actions job log of a step running npm run lint and npm test' \
    --job-log "$(printf '%s\n' 'status=0' 'npx eslint . || status=$?' 'npx jest --ci || status=$?' 'exit $status')" \
    -- bash -c "$script"
}

corpus_shell() {
  want_tool shell || return 0
  tools_begin shell
  TOOLS_RUN+=(shell)
  tool_version shell "$(ls --version | head -n 1) under $(bash --version | head -n 1)"
  class_begin shell missing-file shell "deploy.sh runs ls -l dist/app.js, and dist/app.js was never built"
  variant default 'baseline: bash deploy.sh' -- bash deploy.sh
  variant rerun 'another run of the same command' -- bash deploy.sh
  variant tmp-dir 'another working directory under /tmp' --dir tmp -- bash deploy.sh
  variant job-log 'GitHub Actions job log of bash deploy.sh' --job-log 'bash deploy.sh' -- bash deploy.sh
  variant job-log-other-run 'another GitHub Actions job log of the same step (other timestamps)' \
    --job-log 'bash deploy.sh' -- bash deploy.sh
}
