# CTest, CMake's test driver, from Debian's cmake package, on small C test programs built with the
# system C compiler (sourced).

corpus_cmake() {
  install_debian cmake gcc libc6-dev
  corpus_ctest
}

corpus_ctest() {
  want_tool ctest || return 0
  tools_begin ctest
  TOOLS_RUN+=(ctest)
  tool_version ctest "$(ctest --version | head -n 1)"
  # Configure and build quietly: what is stored is what ctest printed.
  local build='cmake -S . -B build >/dev/null && cmake --build build >/dev/null &&'
  local class description
  for class in failed timeout; do
    case $class in
      failed) description="cart_total: cart_test.c sums from the second price and exits 1 (expected 5, got 3)" ;;
      timeout) description="stock_refresh sleeps 30 s and CTest stops it at its TIMEOUT of 2 s" ;;
    esac
    class_begin ctest "$class" ctest "$description"
    variant default 'baseline: ctest --test-dir build' -- sh -c "$build ctest --test-dir build"
    variant rerun 'another run of the baseline command (durations differ)' \
      -- sh -c "$build ctest --test-dir build"
    variant output-on-failure 'ctest --output-on-failure: the failed tests output follows each' \
      -- sh -c "$build ctest --test-dir build --output-on-failure"
    variant parallel 'parallel: -j 3, tests finish in another order' -- sh -c "$build ctest --test-dir build -j 3"
    variant tmp-dir 'another working directory under /tmp' --dir tmp -- sh -c "$build ctest --test-dir build"
    variant make-test 'make test in the build folder: ctest under make, whose *** line comes last' \
      -- sh -c "$build cd build && make test"
    variant job-log 'GitHub Actions job log of ctest --test-dir build' --job-log 'ctest --test-dir build' \
      -- sh -c "$build ctest --test-dir build"
  done
}
