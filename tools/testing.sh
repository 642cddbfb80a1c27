# What the shell tests share; each sources it first (`. tools/testing.sh`,
# from the workspace root, where Bazel runs tests). Unset variables are
# errors; $TMP is a scratch folder; fail and has_line count failures, which
# finish turns into the verdict and the exit status.
set -u
TMP=${TEST_TMPDIR:-$(mktemp -d)}
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
# has_line FILE LINE: FILE holds LINE, exactly, as a whole line.
has_line() { grep -qxF -- "$2" "$1" || fail "$1 lacks the line '$2'"; }
# finish NAME: the last line of a test.
finish() {
  if [ "$failures" -eq 0 ]; then
    echo "$1: all checks passed"
    exit 0
  fi
  echo "$1: $failures check(s) failed" >&2
  exit 1
}
