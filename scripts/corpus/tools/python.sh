# Python tools from Debian's packages: pytest (with xdist), mypy, flake8, ruff if packaged, and
# the standard library's unittest (sourced).
# They run with Debian's /usr/bin/python3, never a python found elsewhere on PATH.

corpus_python() {
  install_debian python3-pytest python3-pytest-xdist mypy flake8
  corpus_pytest
  corpus_mypy
  corpus_flake8
  corpus_ruff
  corpus_unittest
}

corpus_pytest() {
  want_tool pytest || return 0
  tools_begin pytest
  TOOLS_RUN+=(pytest)
  tool_version pytest "$(/usr/bin/python3 -m pytest --version 2>&1 | head -n 1)"
  local pytest=(/usr/bin/python3 -m pytest -p no:cacheprovider)
  local class description shift_file reversed
  for class in param-assertion fixture-error collection-error exception nested-tool; do
    case $class in
      nested-tool)
        description="tests/test_generated.py::test_generated_code_is_clean runs flake8 on generated code, prints its report (F401 'os' imported but unused) and fails its assert on the exit code"
        shift_file=tests/test_generated.py ;;
      param-assertion)
        description="parametrised test tests/test_vat.py::test_price_with_vat[19.99-standard-23.98] expects 23.98, price_with_vat returns 23.99"
        shift_file=tests/test_vat.py ;;
      fixture-error)
        description="the database fixture of tests/test_orders.py raises ConnectionError: test_order_count errors at setup"
        shift_file=tests/test_orders.py ;;
      collection-error)
        description="tests/test_invoices.py imports shop.invoices, which does not exist: ModuleNotFoundError during collection"
        shift_file=tests/test_invoices.py ;;
      exception)
        description="tests/test_rates.py::test_luxury_rate raises KeyError 'luxury' inside shop/pricing.py"
        shift_file=tests/test_rates.py ;;
    esac
    reversed=$(cd "$CORPUS_ROOT/projects/pytest" && find common/tests "$class/tests" -name 'test_*.py.tmpl' |
      sed 's|^[^/]*/||; s|\.tmpl$||' | sort -r | tr '\n' ' ')
    class_begin pytest "$class" pytest "$description"
    variant default 'baseline: python3 -m pytest, no colour, 120 columns' --env COLUMNS=120 -- "${pytest[@]}"
    variant rerun 'another run of the baseline command (durations differ)' --env COLUMNS=120 -- "${pytest[@]}"
    variant xdist 'parallel: pytest-xdist with two workers (-n 2), results arrive in another order' \
      --env COLUMNS=120 -- "${pytest[@]}" -n 2
    # shellcheck disable=SC2086 # the file list is split on purpose
    variant reversed-order 'another order: test files given on the command line in reverse order' \
      --env COLUMNS=120 -- "${pytest[@]}" $reversed
    variant narrow 'a narrow terminal (COLUMNS=60): summary messages are cut shorter' \
      --env COLUMNS=60 -- "${pytest[@]}"
    variant color 'colour: --color=yes' --env COLUMNS=120 -- "${pytest[@]}" --color=yes
    variant shifted 'line shift: blank lines and a comment inserted at the top of the failing test file' \
      --env COLUMNS=120 --shift "$shift_file" -- "${pytest[@]}"
    variant tmp-dir 'another working directory under /tmp' --dir tmp --env COLUMNS=120 -- "${pytest[@]}"
    variant job-log 'GitHub Actions job log of python -m pytest (the runner has no terminal width: 80 columns)' \
      --job-log 'python -m pytest' -- "${pytest[@]}"
  done
}

corpus_mypy() {
  want_tool mypy || return 0
  tools_begin mypy
  TOOLS_RUN+=(mypy)
  tool_version mypy "$(/usr/bin/python3 -m mypy --version)"
  local mypy=(/usr/bin/python3 -m mypy --cache-dir=/dev/null)
  local class description
  for class in return-value arg-type attr-defined; do
    case $class in
      return-value) description='[return-value]: app/service.py returns customer.age (int) from a function declared to return str' ;;
      arg-type) description='[arg-type]: app/service.py passes age_text (str) as the int field age of Customer' ;;
      attr-defined) description='[attr-defined]: app/service.py calls customer.full_name(), which Customer does not have' ;;
    esac
    class_begin mypy "$class" mypy "$description"
    variant default 'baseline: mypy app, no colour' -- "${mypy[@]}" app
    variant pretty 'the --pretty form, which adds the source line and a caret' -- "${mypy[@]}" --pretty app
    variant color 'colour: MYPY_FORCE_COLOR=1 with TERM=xterm-256color (mypy asks terminfo for colours)' \
      --env MYPY_FORCE_COLOR=1 --env TERM=xterm-256color -- "${mypy[@]}" app
    variant shifted 'line shift: blank lines and a comment inserted at the top of app/service.py' \
      --shift app/service.py -- "${mypy[@]}" app
    variant tmp-dir 'another working directory under /tmp' --dir tmp -- "${mypy[@]}" app
    variant job-log 'GitHub Actions job log of mypy app' --job-log 'mypy app' -- "${mypy[@]}" app
  done
}

corpus_flake8() {
  want_tool flake8 || return 0
  tools_begin flake8
  TOOLS_RUN+=(flake8)
  tool_version flake8 "$(/usr/bin/python3 -m flake8 --version | tr -s '\n' ' ' | sed 's/ $//')"
  local flake8=(/usr/bin/python3 -m flake8)
  local class description
  for class in unused-import undefined-name none-comparison; do
    case $class in
      unused-import) description="F401: app/report.py imports os and never uses it" ;;
      undefined-name) description="F821: app/report.py calls render_header, which is defined nowhere" ;;
      none-comparison) description="E711: app/report.py compares title to None with ==" ;;
    esac
    class_begin flake8 "$class" flake8 "$description"
    variant default 'baseline: flake8 app, no colour' -- "${flake8[@]}" app
    variant show-source 'the --show-source form, which adds the source line and a caret' \
      -- "${flake8[@]}" --show-source app
    variant color 'colour: --color=always' -- "${flake8[@]}" --color=always app
    variant shifted 'line shift: blank lines and a comment inserted at the top of app/report.py' \
      --shift app/report.py -- "${flake8[@]}" app
    variant dot-path 'paths given as . instead of app, so they print with a ./ prefix' -- "${flake8[@]}" .
    variant tmp-dir 'another working directory under /tmp' --dir tmp -- "${flake8[@]}" app
    variant job-log 'GitHub Actions job log of flake8 app' --job-log 'flake8 app' -- "${flake8[@]}" app
  done
}

corpus_ruff() {
  want_tool ruff || return 0
  if ! debian_available ruff; then
    tool_unavailable ruff "Debian $(. /etc/os-release && echo "$VERSION_CODENAME") has no ruff package (apt-cache policy ruff: no candidate); PyPI is out of reach"
    TOOLS_RUN+=(ruff)
    return 0
  fi
  die "ruff is packaged here: add its classes to scripts/corpus/tools/python.sh"
}

corpus_unittest() {
  want_tool unittest || return 0
  tools_begin unittest
  TOOLS_RUN+=(unittest)
  tool_version unittest "unittest of $(/usr/bin/python3 --version)"
  local unittest=(/usr/bin/python3 -m unittest)
  local class description
  for class in fail error; do
    case $class in
      fail) description="tests/test_vat.py VatTest.test_standard_rate expects 12.5, price_with_vat(10, 'standard') returns 12.0" ;;
      error) description="tests/test_vat.py VatTest.test_luxury_rate: shop.price_with_vat raises KeyError 'luxury'" ;;
    esac
    class_begin unittest "$class" unittest "$description"
    variant default 'baseline: python3 -m unittest' -- "${unittest[@]}"
    variant verbose 'python3 -m unittest -v: one line per test' -- "${unittest[@]}" -v
    variant rerun 'another run of the baseline command (durations differ)' -- "${unittest[@]}"
    variant shifted 'line shift: blank lines and a comment inserted at the top of the test file' \
      --shift tests/test_vat.py -- "${unittest[@]}"
    variant tmp-dir 'another working directory under /tmp' --dir tmp -- "${unittest[@]}"
    variant job-log 'GitHub Actions job log of python -m unittest' --job-log 'python -m unittest' \
      -- "${unittest[@]}"
  done
}
