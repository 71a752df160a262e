# Ruby: RSpec from Debian's ruby-rspec (sourced).

corpus_ruby() {
  install_debian ruby-rspec
  corpus_rspec
}

corpus_rspec() {
  want_tool rspec || return 0
  tools_begin rspec
  TOOLS_RUN+=(rspec)
  tool_version rspec "$(env -i "$(tool_env "$WORK" | grep '^PATH=')" rspec --version | tr -s '\n ' ' ' | sed 's/ $//')"
  local class description shift_file
  for class in expectation zero-division no-method load-error; do
    case $class in
      load-error)
        description="spec/invoice_spec.rb describes Invoice, which is defined nowhere: the file fails to load (NameError)"
        shift_file=spec/invoice_spec.rb ;;
      expectation)
        description="Cart#total adds the shipping to the prices expects eq(949) and gets 449 in spec/total_spec.rb"
        shift_file=spec/total_spec.rb ;;
      zero-division)
        description="Cart#average is zero for an empty cart raises ZeroDivisionError inside lib/cart.rb (spec/average_spec.rb)"
        shift_file=spec/average_spec.rb ;;
      no-method)
        description="Cart#discount takes ten percent off calls Cart#discount, which does not exist: NoMethodError (spec/discount_spec.rb)"
        shift_file=spec/discount_spec.rb ;;
    esac
    class_begin rspec "$class" rspec "$description"
    variant progress 'baseline: rspec with the default progress formatter, no colour' -- rspec
    variant rerun 'another run of the baseline command (durations differ)' -- rspec
    variant documentation 'the documentation formatter (--format documentation)' -- rspec --format documentation
    variant random-order 'another example order: --order rand with a fixed seed' -- rspec --order rand:20260728
    variant color 'colour: --force-color' -- rspec --force-color
    variant shifted 'line shift: blank lines and a comment inserted at the top of the failing spec file' \
      --shift "$shift_file" -- rspec
    variant tmp-dir 'another working directory under /tmp' --dir tmp -- rspec
    variant job-log 'GitHub Actions job log of bundle exec rspec' --job-log 'bundle exec rspec' -- rspec
  done
}
