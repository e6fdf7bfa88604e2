# llm.h - build the tools, examples and tests.
#   make            tools and examples in build/ (native CPU, OpenMP when the compiler has it)
#   make run        convert the built-in model (models/kjv-tiny) and let it write a few verses
#   make test       build and run every test ("N passed, N failed, N skipped"), then the suite
#                   under ASan + UBSan, valgrind and TSan (make test-sanitize); -j2 builds faster
#   make PORTABLE=1 baseline x86-64 code, no -march=native
#   make OPENMP=0   no OpenMP (llm.h's own pthread pool)
#   make B=DIR EXE=.exe  build into DIR (default build/), programs named NAME$(EXE)
#   make test-sanitize  the suite under ASan + UBSan, valgrind and TSan only
#   make test-suite the test programs and scripts in $(B) only
#   make test-platforms  every compiler and platform of the README's Portability table
#   make fuzz FUZZ_SECONDS=60  each libFuzzer target in tests/fuzz for that long (-j2: two at once)
CC      ?= cc
CFLAGS  ?= -O2
WARN     = -std=c99 -Wall -Wextra -Wpedantic
OPENMP  ?= 1
PORTABLE ?= 0
ifeq ($(PORTABLE),0)
  ARCH_FLAGS = -march=native
endif
ifeq ($(OPENMP),1)
  OMP_FLAGS = -fopenmp
else
  OMP_FLAGS = -pthread
endif
ALL_CFLAGS = $(WARN) $(CFLAGS) $(ARCH_FLAGS) $(OMP_FLAGS)
LDLIBS   = -lm
B       ?= build
EXE     ?=
# The tests are C99 programs; the C++ platform builds compile only the programs as C++.
TEST_CC   ?= $(CC)
TEST_WARN ?= $(WARN)
TEST_CFLAGS = $(TEST_WARN) $(CFLAGS) $(ARCH_FLAGS) $(OMP_FLAGS)

PROGRAMS = $(B)/convert$(EXE) $(B)/generate$(EXE) $(B)/chat$(EXE) $(B)/simple$(EXE) $(B)/tokenize$(EXE) \
           $(B)/bench_tokenize$(EXE) $(B)/gen_model$(EXE) $(B)/bench$(EXE) $(B)/npc$(EXE) $(B)/perplexity$(EXE)
TEST_SRCS = $(wildcard tests/test_*.c)
TEST_BINS = $(patsubst tests/%.c,$(B)/tests/%$(EXE),$(TEST_SRCS))
TOOL_BINS = $(patsubst tests/%.c,$(B)/tests/%$(EXE),$(wildcard tests/tool_*.c))
FUZZ_NAMES = $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_REPLAY = $(patsubst %,$(B)/tests/%$(EXE),$(FUZZ_NAMES))

all: $(PROGRAMS)

$(B)/convert$(EXE): tools/convert.c tools/json.h tools/convert_chat.h tools/convert_tokenizer.h llm.h | $(B)
	$(CC) $(ALL_CFLAGS) -o $@ tools/convert.c $(LDLIBS)

$(B)/gen_model$(EXE): tools/gen_model.c llm.h | $(B)
	$(CC) $(ALL_CFLAGS) -o $@ tools/gen_model.c $(LDLIBS)

$(B)/chat$(EXE): examples/chat.c tools/json.h

$(B)/%$(EXE): examples/%.c llm.h tools/json.h $(wildcard examples/*.h) | $(B)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LDLIBS)

# The fuzz targets, built with a main() that replays files (tests/test_fuzz_replay.sh).
$(B)/tests/fuzz_%$(EXE): tests/fuzz/fuzz_%.c tests/fuzz/replay.c llm.h tools/json.h tools/convert.c tools/convert_chat.h tools/convert_tokenizer.h | $(B)/tests
	$(TEST_CC) $(TEST_CFLAGS) -o $@ $< tests/fuzz/replay.c $(LDLIBS)

$(B)/tests/%$(EXE): tests/%.c llm.h tools/json.h tools/convert_chat.h $(wildcard tests/*.h) | $(B)/tests
	$(TEST_CC) $(TEST_CFLAGS) -o $@ $< $(LDLIBS)

$(B) $(B)/tests:
	mkdir -p $@

test-build: $(PROGRAMS) $(TEST_BINS) $(TOOL_BINS) $(FUZZ_REPLAY)

test-suite: test-build
	@BUILD=$(B) sh tests/run_all.sh

test: test-suite
	@$(MAKE) --no-print-directory test-sanitize

# The suite under ASan + UBSan, convert + generate under valgrind, test_threads under TSan.
# Each fails, naming the package .ci/run installs, when its tool is missing.
test-sanitize:
	@$(MAKE) --no-print-directory test-asan
	@$(MAKE) --no-print-directory test-valgrind
	@$(MAKE) --no-print-directory test-tsan

# The whole suite again, built by clang with AddressSanitizer and UndefinedBehaviorSanitizer;
# the first report stops the program. -O0: a sixth of -O1's build time, and LeakSanitizer
# sees leaks that -O1 hides. (The scripts that build with the host compiler themselves have
# nothing sanitized to run.)
SAN_FLAGS = -O0 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
HOST_ONLY_TESTS = test_build.sh test_cmake.sh test_install.sh test_readme.sh test_simd.sh
test-asan:
	@echo "== suite under ASan + UBSan (build/asan)"
	@sh tests/need.sh -fsanitize=address,undefined
	@$(MAKE) --no-print-directory -s B=build/asan CC=clang CFLAGS="$(SAN_FLAGS)" test-build
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	  BUILD=build/asan SKIP_TESTS="$(HOST_ONLY_TESTS)" sh tests/run_all.sh

# Conversion, generation and a chat turn under valgrind memcheck: no errors, no leaks.
test-valgrind:
	@echo "== convert + generate under valgrind (build/valgrind)"
	@command -v valgrind >/dev/null 2>&1 || { echo "valgrind is not installed: apt-get install valgrind (.ci/run installs it)"; exit 1; }
	@$(MAKE) --no-print-directory -s B=build/valgrind PORTABLE=1 OPENMP=0 CFLAGS="-O1 -g" build/valgrind/convert build/valgrind/generate build/valgrind/simple
	@sh tests/valgrind.sh build/valgrind

# One model shared by 4 threads, each with its own context, under ThreadSanitizer.
test-tsan:
	@echo "== test_threads under ThreadSanitizer (build/tsan)"
	@sh tests/need.sh -fsanitize=thread
	@$(MAKE) --no-print-directory -s B=build/tsan CC=clang OPENMP=0 CFLAGS="-O1 -g -fsanitize=thread" build/tsan/tests/test_threads
	@TSAN_OPTIONS=halt_on_error=1 build/tsan/tests/test_threads

test-platforms:
	@sh tests/platforms.sh

# libFuzzer targets: make fuzz FUZZ_SECONDS=N runs each for N seconds (new inputs go to
# build/fuzz/corpus/NAME, crashes to build/fuzz/crashes/NAME).
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS = -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
build/fuzz/%: tests/fuzz/%.c llm.h tools/json.h tools/convert.c tools/convert_chat.h tools/convert_tokenizer.h | fuzz-need
	@mkdir -p build/fuzz
	clang $(FUZZ_CFLAGS) -o $@ $< -lm

.PRECIOUS: build/fuzz/fuzz_%

fuzz-need:
	@sh tests/need.sh -fsanitize=fuzzer,address,undefined

fuzz-build: $(patsubst %,build/fuzz/%,$(FUZZ_NAMES))

fuzz: $(patsubst %,fuzz-run-%,$(FUZZ_NAMES))

fuzz-run-%: build/fuzz/% | fuzz-need
	@sh tests/fuzz/run.sh $* $(FUZZ_SECONDS)

# The built-in model: King-James-style text sampled at temperature 0.8, top-p 0.95, seed 1;
# generate reports the speed on stderr.
RUN_PROMPT = And it came to pass
build/kjv-tiny.llm: build/convert $(wildcard models/kjv-tiny/*)
	build/convert models/kjv-tiny $@

run: build/kjv-tiny.llm build/generate
	build/generate -m build/kjv-tiny.llm -p "$(RUN_PROMPT)" -n 100 --temp 0.8 --top-p 0.95 --seed 1

# make install PREFIX=/usr/local DESTDIR=...: llm.h, the programs as llm-NAME, llm.pc.
PREFIX  ?= /usr/local
VERSION  = 0.1.0
INSTALL_PROGRAMS = $(filter-out $(B)/simple$(EXE) $(B)/gen_model$(EXE) $(B)/bench_tokenize$(EXE) $(B)/npc$(EXE),$(PROGRAMS))
ifeq ($(OPENMP),1)
  PC_OMP = -fopenmp
endif

build/llm.pc: llm.pc.in Makefile | $(B)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' -e 's|@OMP_CFLAGS@|$(PC_OMP)|' \
	    -e 's|@OMP_LIBS@|$(PC_OMP)|' llm.pc.in > $@

install: $(PROGRAMS) build/llm.pc
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 llm.h $(DESTDIR)$(PREFIX)/include/llm.h
	for p in $(INSTALL_PROGRAMS); do install -m 755 $$p $(DESTDIR)$(PREFIX)/bin/llm-$$(basename $$p); done
	install -m 644 build/llm.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/llm.pc

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/include/llm.h $(DESTDIR)$(PREFIX)/lib/pkgconfig/llm.pc
	for p in $(INSTALL_PROGRAMS); do rm -f $(DESTDIR)$(PREFIX)/bin/llm-$$(basename $$p); done

clean:
	rm -rf build

.PHONY: all run test test-sanitize test-build test-suite test-asan test-valgrind test-tsan test-platforms fuzz fuzz-build fuzz-need clean install uninstall
