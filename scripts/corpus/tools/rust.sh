# Rust tools already on the machine: cargo test, rustc (through cargo build and directly), clippy
# (sourced). The crates have no dependencies, so nothing is fetched from a registry.

corpus_rust() {
  command -v cargo >/dev/null || die "cargo is not on PATH (the rust group needs cargo, rustc and clippy)"
  corpus_cargo_test
  corpus_rustc
  corpus_clippy
}

rust_env_version() { env -i "$(tool_env "$WORK" | grep '^PATH=')" \
  "RUSTUP_HOME=$RUSTUP_HOME_DIR" "CARGO_HOME=$CARGO_HOME_DIR" "$@"; }

corpus_cargo_test() {
  want_tool cargo-test || return 0
  tools_begin cargo-test
  TOOLS_RUN+=(cargo-test)
  tool_version cargo-test "$(rust_env_version cargo --version)"
  local class description shift_file
  for class in assertion unwrap-none integration; do
    case $class in
      assertion)
        description="unit test extra::tests::shipping_is_added_once fails assert_eq!: left 750, right 700"
        shift_file=src/extra.rs ;;
      unwrap-none)
        description="unit test extra::tests::cake_has_a_price panics: called Option::unwrap() on a None value"
        shift_file=src/extra.rs ;;
      integration)
        description="integration test tests/receipt.rs receipt_total_matches fails its assert!: receipt total 548 is over budget"
        shift_file=tests/receipt.rs ;;
    esac
    class_begin cargo-test "$class" rust "$description"
    variant default 'baseline: cargo test, no colour' -- cargo test
    variant rerun 'another run of the baseline command (durations differ)' -- cargo test
    variant one-thread 'tests run one at a time: -- --test-threads=1' -- cargo test -- --test-threads=1
    variant backtrace 'RUST_BACKTRACE=1, as many CI setups export' --env RUST_BACKTRACE=1 -- cargo test
    variant color 'colour: CARGO_TERM_COLOR=always and --color=always for the test harness' \
      --env CARGO_TERM_COLOR=always -- cargo test -- --color=always
    variant shifted 'line shift: blank lines and a comment inserted at the top of the failing file' \
      --shift "$shift_file" -- cargo test
    variant tmp-dir 'another working directory under /tmp' --dir tmp -- cargo test
    variant job-log 'GitHub Actions job log of cargo test with CARGO_TERM_COLOR=always' \
      --env CARGO_TERM_COLOR=always --job-log 'cargo test' -- cargo test
    variant summary-cut 'the log ends inside the ---- <test> stdout ---- blocks: the failures list and the test result line are cut off' \
      --cut-at '^failures:$' -- cargo test
  done
}

corpus_rustc() {
  want_tool rustc || return 0
  tools_begin rustc
  TOOLS_RUN+=(rustc)
  tool_version rustc "$(rust_env_version rustc --version)"
  local class description
  for class in mismatched-types unknown-method unresolved-name; do
    case $class in
      mismatched-types) description="E0308: src/extra.rs assigns the String from format! to a variable typed u32" ;;
      unknown-method) description="E0599: src/extra.rs calls round_up_to on a u32, which has no such method" ;;
      unresolved-name) description="E0425: src/extra.rs uses STANDARD_RATE, which is defined nowhere" ;;
    esac
    class_begin rustc "$class" rust "$description"
    variant build 'baseline: cargo build, no colour' -- cargo build
    variant check 'cargo check instead of cargo build' -- cargo check
    variant color 'colour: CARGO_TERM_COLOR=always' --env CARGO_TERM_COLOR=always -- cargo build
    variant short 'the one-line --message-format=short form' -- cargo build --message-format=short
    variant rustc-direct 'rustc run directly on src/lib.rs, without cargo' \
      -- rustc --edition 2021 --crate-type lib src/lib.rs -o /dev/null
    variant shifted 'line shift: blank lines and a comment inserted at the top of src/extra.rs' \
      --shift src/extra.rs -- cargo build
    variant tmp-dir 'another working directory under /tmp' --dir tmp -- cargo build
    variant job-log 'GitHub Actions job log of cargo build' --job-log 'cargo build' -- cargo build
    variant ends-at-diagnostic 'the log ends on the diagnostic'"'"'s last line (no blank line, no closing error: lines after it)' \
      --cut-at '^For more information about' -- cargo build
  done
}

corpus_clippy() {
  want_tool clippy || return 0
  tools_begin clippy
  TOOLS_RUN+=(clippy)
  tool_version clippy "$(rust_env_version cargo clippy --version)"
  local class description
  for class in needless-return len-zero; do
    case $class in
      needless-return) description="clippy::needless_return (denied by -D warnings): src/extra.rs ends a function with return" ;;
      len-zero) description="clippy::len_zero (denied by -D warnings): src/extra.rs compares items.len() == 0" ;;
    esac
    class_begin clippy "$class" rust "$description"
    variant default 'baseline: cargo clippy -- -D warnings, no colour' -- cargo clippy -- -D warnings
    variant rerun 'another run of the baseline command (timings differ)' -- cargo clippy -- -D warnings
    variant color 'colour: CARGO_TERM_COLOR=always' --env CARGO_TERM_COLOR=always \
      -- cargo clippy -- -D warnings
    variant short 'the one-line --message-format=short form' \
      -- cargo clippy --message-format=short -- -D warnings
    variant all-targets 'cargo clippy --all-targets (tests are checked too)' \
      -- cargo clippy --all-targets -- -D warnings
    variant shifted 'line shift: blank lines and a comment inserted at the top of src/extra.rs' \
      --shift src/extra.rs -- cargo clippy -- -D warnings
    variant tmp-dir 'another working directory under /tmp' --dir tmp -- cargo clippy -- -D warnings
    variant job-log 'GitHub Actions job log of cargo clippy -- -D warnings' \
      --job-log 'cargo clippy -- -D warnings' -- cargo clippy -- -D warnings
  done
}
