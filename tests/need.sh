#!/bin/sh
# tests/need.sh FLAGS...: fails, naming the Debian packages that .ci/run installs, unless
# clang builds and links a program with FLAGS (its sanitizer and libFuzzer runtimes).
# make test and make fuzz call it first, so a missing tool is an error, never a skip.
dir=${TMPDIR:-/tmp}/llm-need.$$
mkdir -p "$dir" || exit 1
trap 'rm -rf "$dir"' EXIT
case " $* " in *fuzzer*) main="int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }";;
                  *) main="int main(void) { return 0; }";; esac
echo "$main" > "$dir/probe.c"
if ! command -v clang >/dev/null 2>&1; then
  echo "clang is not installed: apt-get install clang libclang-rt-14-dev (.ci/run installs them)"; exit 1
fi
if ! clang "$@" -o "$dir/probe" "$dir/probe.c" >"$dir/log" 2>&1; then
  echo "clang cannot build with $*: apt-get install libclang-rt-14-dev (.ci/run installs it)"
  sed 's/^/    /' "$dir/log" | head -n 5; exit 1
fi
