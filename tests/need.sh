# tests/need.sh, sourced by the test scripts and tests/suite.sh: checks for the optional
# tools a step needs. make test runs everything the machine can run and skips a step whose
# tool is absent; make test-all (LLM_TEST_ALL=1, what .ci/run runs after installing the
# packages) takes an absent tool as a failure.
#   need STEP PACKAGES TOOL...         every TOOL is a command on PATH
#   need_file STEP PACKAGES FILE...    every FILE exists
#   need_clang STEP PACKAGES FLAGS...  clang builds and links a program with FLAGS
# Each returns 0 when all is there; otherwise it prints "SKIP STEP: needs PACKAGES" (or,
# under LLM_TEST_ALL=1, "FAIL STEP: needs PACKAGES: WHAT is missing") and returns 1. A
# script then exits with $need_exit: 0 for a skip, 1 for a failure.
if [ "${LLM_TEST_ALL:-0}" = 1 ]; then need_exit=1; else need_exit=0; fi

need_missing() { # STEP PACKAGES WHAT
  if [ $need_exit = 1 ]; then echo "FAIL $1: needs $2: $3 is missing"; else echo "SKIP $1: needs $2"; fi
  return 1
}

need() {
  n=$1; p=$2; shift 2
  for t in "$@"; do command -v "$t" >/dev/null 2>&1 || { need_missing "$n" "$p" "$t"; return 1; }; done
}

need_file() {
  n=$1; p=$2; shift 2
  for f in "$@"; do [ -e "$f" ] || { need_missing "$n" "$p" "$f"; return 1; }; done
}

need_clang() {
  n=$1; p=$2; shift 2
  need "$n" "$p" clang || return 1
  d=${TMPDIR:-/tmp}/llm-need.$$; mkdir -p "$d" || return 1
  case " $* " in
    *fuzzer*) echo "int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }";;
    *) echo "int main(void) { return 0; }";;
  esac > "$d/probe.c"
  clang "$@" -o "$d/probe" "$d/probe.c" >"$d/log" 2>&1; rc=$?
  rm -rf "$d"
  [ $rc = 0 ] || { need_missing "$n" "$p" "clang's $* runtime"; return 1; }
}
