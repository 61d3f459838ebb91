# What install.sh and package.sh share (sourced): a scratch directory removed on exit, and
# named checks that count failures.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
# check WHAT COMMAND...: runs COMMAND; "ok: WHAT", or a failure named WHAT.
check() {
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else fail "$what"; fi
}
# finish NAME: the exit status of the script, after the count of failed checks.
finish() {
  if ((failures)); then
    echo "$failures check(s) failed"
    exit 1
  fi
  echo "$1: every check passed"
}
