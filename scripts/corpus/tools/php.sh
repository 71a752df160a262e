# PHP: PHPUnit from Debian's phpunit package (sourced).

corpus_php() {
  install_debian php-cli phpunit
  corpus_phpunit
}

corpus_phpunit() {
  want_tool phpunit || return 0
  tools_begin phpunit
  TOOLS_RUN+=(phpunit)
  tool_version phpunit "$(env -i "$(tool_env "$WORK" | grep '^PATH=')" phpunit --version | head -n 1)"
  local class description shift_file
  for class in assertion error data-set; do
    case $class in
      assertion)
        description="Shop\\Tests\\TotalTest::testAddsShipping fails assertSame: 949 expected, 449 given"
        shift_file=tests/TotalTest.php ;;
      error)
        description="Shop\\Tests\\AverageTest::testEmptyCartAverage errors: DivisionByZeroError from intdiv in src/Cart.php"
        shift_file=tests/AverageTest.php ;;
      data-set)
        description="Shop\\Tests\\TaxTest::testWithTax with data set \"reduced\" fails assertSame: 1060 expected, 1050 given"
        shift_file=tests/TaxTest.php ;;
    esac
    class_begin phpunit "$class" phpunit "$description"
    variant default 'baseline: phpunit, no colour' -- phpunit
    variant rerun 'another run of the baseline command (durations differ)' -- phpunit
    variant reverse-order 'another test order: --order-by=reverse' -- phpunit --order-by=reverse
    variant color 'colour: --colors=always' -- phpunit --colors=always
    variant shifted 'line shift: blank lines and a comment inserted at the top of the failing test file' \
      --shift "$shift_file" -- phpunit
    variant tmp-dir 'another working directory under /tmp (failure locations are absolute paths)' --dir tmp -- phpunit
    variant job-log 'GitHub Actions job log of vendor/bin/phpunit' --job-log 'vendor/bin/phpunit' -- phpunit
  done
}
