# Next.js from npm (sourced): next build's type check and next lint (Next.js 15; `next lint` is
# gone from 16).

corpus_next() {
  install_next_tools
  CLASS_NODE_TOOLS=$NEXT_TOOLS
  corpus_next_build
  CLASS_NODE_TOOLS=''
}

corpus_next_build() {
  want_tool next || return 0
  tools_begin next
  TOOLS_RUN+=(next)
  tool_version next "$("$NEXT_TOOLS/node_modules/.bin/next" --version)"
  local class description command quiet=NEXT_TELEMETRY_DISABLED=1
  for class in type-error lint-error; do
    case $class in
      type-error)
        description="TypeScript in next build: app/page.tsx assigns the string 'twelve' to total: number"
        command=build ;;
      lint-error)
        description="next lint: app/page.tsx uses <img> where @next/next/no-img-element (set to error) wants <Image />"
        command=lint ;;
    esac
    class_begin next "$class" next "$description"
    variant default "baseline: next $command" --env "$quiet" -- next "$command"
    variant rerun 'another run of the baseline command (durations differ)' --env "$quiet" -- next "$command"
    variant shifted 'line shift: blank lines and a comment inserted at the top of app/page.tsx' \
      --env "$quiet" --shift app/page.tsx -- next "$command"
    variant tmp-dir 'another working directory under /tmp' --env "$quiet" --dir tmp -- next "$command"
    variant job-log "GitHub Actions job log of npx next $command" --env "$quiet" \
      --job-log "npx next $command" -- next "$command"
  done
}
