# Go tools from Debian's golang-go: go test, go build, go vet (sourced). No module downloads
# (GOPROXY=off): the projects have no dependencies.

corpus_go() {
  install_debian golang-go
  corpus_go_test
  corpus_go_build
  corpus_go_vet
}

go_version() { env -i "$(tool_env "$WORK" | grep '^PATH=')" go version; }

corpus_go_test() {
  want_tool go-test || return 0
  tools_begin go-test
  TOOLS_RUN+=(go-test)
  tool_version go-test "$(go_version)"
  local class description shift_file
  for class in assertion subtest panic build-failed; do
    case $class in
      assertion)
        description="TestTotalAddsShipping in ./pricing fails its t.Errorf check (Total([250 199]) = 449, want 949)"
        shift_file=pricing/total_test.go ;;
      subtest)
        description="subtest TestCents/negative in ./parse fails: Cents(\"-2.50\") = -150, want -250"
        shift_file=parse/table_test.go ;;
      panic)
        description="TestPriceCache in ./pricing panics: assignment to entry in nil map"
        shift_file=pricing/cache_test.go ;;
      build-failed)
        description="parse/store_test.go calls NewStore, which is undefined: the ./parse test binary does not build"
        shift_file=parse/store_test.go ;;
    esac
    class_begin go-test "$class" go "$description"
    variant default 'baseline: go test -count=1 ./...' -- go test -count=1 ./...
    variant rerun 'another run of the baseline command (durations differ)' -- go test -count=1 ./...
    variant verbose 'verbose: -v adds === RUN and --- PASS lines around the failure' -- go test -count=1 -v ./...
    variant shuffle 'another test order: -shuffle with a fixed seed' -- go test -count=1 -shuffle=20260728 ./...
    variant serial 'one package at a time: -p 1' -- go test -count=1 -p 1 ./...
    variant shifted 'line shift: blank lines and a comment inserted at the top of the failing test file' \
      --shift "$shift_file" -- go test -count=1 ./...
    variant tmp-dir 'another working directory under /tmp' --dir tmp -- go test -count=1 ./...
    variant job-log 'GitHub Actions job log of go test ./...' --job-log 'go test ./...' -- go test -count=1 ./...
  done

  class_begin go-test timeout go "TestRefreshRates in ./pricing waits on a channel that is closed after an hour: the test binary panics with 'test timed out' after 3s"
  variant default 'baseline: go test -count=1 -timeout 3s ./...' -- go test -count=1 -timeout 3s ./...
  variant rerun 'another run of the baseline command (goroutine ids and addresses differ)' \
    -- go test -count=1 -timeout 3s ./...
  variant verbose 'verbose: -v adds === RUN lines' -- go test -count=1 -v -timeout 3s ./...
  variant longer-timeout 'another timeout: -timeout 4s' -- go test -count=1 -timeout 4s ./...
  variant shifted 'line shift: blank lines and a comment inserted at the top of the failing test file' \
    --shift pricing/refresh_test.go -- go test -count=1 -timeout 3s ./...
  variant tmp-dir 'another working directory under /tmp' --dir tmp -- go test -count=1 -timeout 3s ./...
  variant job-log 'GitHub Actions job log of go test -timeout 3s ./...' --job-log 'go test -timeout 3s ./...' \
    -- go test -count=1 -timeout 3s ./...

  local bench=(go test -count=1 -run '^$' -bench .)
  class_begin go-test benchmark go "BenchmarkTotal in ./pricing fails its b.Fatalf check (Total([250 199]) = 449, want 949)"
  variant default 'baseline: go test -run ^$ -bench . ./... with -cpu 2' -- "${bench[@]}" -cpu 2 ./...
  variant rerun 'another run of the baseline command' -- "${bench[@]}" -cpu 2 ./...
  variant cpu-4 'another GOMAXPROCS: -cpu 4' -- "${bench[@]}" -cpu 4 ./...
  variant cpu-1 'GOMAXPROCS 1: -cpu 1' -- "${bench[@]}" -cpu 1 ./...
  variant shifted 'line shift: blank lines and a comment inserted at the top of the benchmark file' \
    --shift pricing/total_bench_test.go -- "${bench[@]}" -cpu 2 ./...
  variant job-log 'GitHub Actions job log of go test -bench . ./...' --job-log 'go test -run ^$ -bench . ./...' \
    -- "${bench[@]}" -cpu 2 ./...
}

corpus_go_build() {
  want_tool go-build || return 0
  tools_begin go-build
  TOOLS_RUN+=(go-build)
  tool_version go-build "$(go_version)"
  local class description shift_file
  for class in undefined type-mismatch; do
    case $class in
      undefined)
        description="pricing/tax.go uses StandardRate, which is defined nowhere: undefined: StandardRate"
        shift_file=pricing/tax.go ;;
      type-mismatch)
        description="pricing/label.go assigns the string from fmt.Sprintf to a variable of type int"
        shift_file=pricing/label.go ;;
    esac
    class_begin go-build "$class" go "$description"
    variant default 'baseline: go build ./...' -- go build ./...
    variant verbose 'verbose: -v lists the packages it builds' -- go build -v ./...
    variant shifted 'line shift: blank lines and a comment inserted at the top of the failing file' \
      --shift "$shift_file" -- go build ./...
    variant tmp-dir 'another working directory under /tmp' --dir tmp -- go build ./...
    variant other-repo-dir 'another runner checkout path, /home/runner/work/other-repo/other-repo' \
      --dir other -- go build ./...
    variant job-log 'GitHub Actions job log of go build ./...' --job-log 'go build ./...' -- go build ./...
  done
}

corpus_go_vet() {
  want_tool go-vet || return 0
  tools_begin go-vet
  TOOLS_RUN+=(go-vet)
  tool_version go-vet "$(go_version)"
  local class description shift_file
  for class in printf self-assign; do
    case $class in
      printf)
        description="printf check: pricing/report.go passes the string name to a %d verb of fmt.Printf"
        shift_file=pricing/report.go ;;
      self-assign)
        description="assign check: pricing/round.go assigns amount to itself"
        shift_file=pricing/round.go ;;
    esac
    class_begin go-vet "$class" go "$description"
    variant default 'baseline: go vet ./...' -- go vet ./...
    variant package-path 'the package named by its directory (go vet ./pricing) instead of ./...' \
      -- go vet ./pricing
    variant shifted 'line shift: blank lines and a comment inserted at the top of the failing file' \
      --shift "$shift_file" -- go vet ./...
    variant tmp-dir 'another working directory under /tmp' --dir tmp -- go vet ./...
    variant other-repo-dir 'another runner checkout path, /home/runner/work/other-repo/other-repo' \
      --dir other -- go vet ./...
    variant job-log 'GitHub Actions job log of go vet ./...' --job-log 'go vet ./...' -- go vet ./...
  done
}
