# llm.h - build the tools, programs, examples and tests.
#   make            tools, programs and examples in build/ (OpenMP when the compiler has it): portable
#                   programs, as make install and packagers want, that run the best kernels for the
#                   CPU they find (llm.h chooses at run time; no -march needed)
#   make run        convert the built-in model (models/kjv-tiny) and let it write a few verses
#   make test       build and run every test, then the suite under ASan + UBSan, valgrind and
#                   TSan; a check whose optional tool is absent says "SKIP STEP: needs PACKAGE"
#                   ("total: N passed, N failed, N skipped"); -j2 builds faster
#   make test-all   the same, an absent tool failing; then test-platforms and fuzz (.ci/run)
#   make NATIVE=1   -march=native: code for this machine's CPU alone (the kernels are the same)
#   make OPENMP=0   no OpenMP (llm.h's own pthread pool)
#   make B=DIR EXE=.exe  build into DIR (default build/), programs named NAME$(EXE)
#   make test-sanitize  the suite under ASan + UBSan, valgrind and TSan only (stages of tests/suite.sh)
#   make test-suite the test programs and scripts in $(B) only
#   make test-platforms  every compiler and platform of the README's Portability table
#   make fuzz FUZZ_SECONDS=60  each libFuzzer target in tests/fuzz for that long (-j2: two at once)
CC      ?= cc
CFLAGS  ?= -O2
WARN     = -std=c99 -Wall -Wextra -Wpedantic
OPENMP  ?= 1
NATIVE  ?= 0
ifeq ($(NATIVE),1)
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
           $(B)/bench_tokenize$(EXE) $(B)/gen_model$(EXE) $(B)/bench$(EXE) $(B)/npc$(EXE) $(B)/perplexity$(EXE) \
           $(B)/embed$(EXE)
TEST_SRCS = $(wildcard tests/test_*.c)
TEST_BINS = $(patsubst tests/%.c,$(B)/tests/%$(EXE),$(TEST_SRCS))
TOOL_BINS = $(patsubst tests/%.c,$(B)/tests/%$(EXE),$(wildcard tests/tool_*.c))
FUZZ_NAMES = $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_REPLAY = $(patsubst %,$(B)/tests/%$(EXE),$(FUZZ_NAMES))

all: $(PROGRAMS)

$(B)/convert$(EXE): tools/convert.c tools/llm_convert.h tools/llm_gguf.h tools/llm_retype.h tools/llm_quant_vec.h tools/json.h llm.h | $(B)
	$(CC) $(ALL_CFLAGS) -o $@ tools/convert.c $(LDLIBS)

# The command-line programs share their helpers (programs/*.h); chat and tokenize read JSON.
# They link the implementation compiled once (programs/llm.c). (-x none: a C++ build's
# CC="g++ -x c++" would read the object as C++ source.)
LINK_X = $(if $(findstring -x ,$(CC) ),-x none)
$(B)/llm.o: programs/llm.c llm.h | $(B)
	$(CC) $(ALL_CFLAGS) -c -o $@ programs/llm.c

$(B)/%$(EXE): programs/%.c $(B)/llm.o llm.h tools/json.h $(wildcard programs/*.h) | $(B)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LINK_X) $(B)/llm.o $(LDLIBS)

# The test-model generator uses the public API alone.
$(B)/gen_model$(EXE): tools/gen_model.c $(B)/llm.o llm.h | $(B)
	$(CC) $(ALL_CFLAGS) -o $@ tools/gen_model.c $(LINK_X) $(B)/llm.o $(LDLIBS)

# The examples use llm.h alone.
$(B)/%$(EXE): examples/%.c llm.h | $(B)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LDLIBS)

# The tests (and fuzz targets) that use only the public API link the implementation compiled
# once, as the programs do (built by TEST_CC: a C++ row's tests are C); the others reach
# internals (below).
TEST_DEPS = llm.h tools/json.h tools/llm_convert.h tools/llm_gguf.h tools/llm_retype.h tools/llm_quant_vec.h $(wildcard tests/*.h)
API_ONLY  = $(basename $(notdir $(shell grep -L 'define LLM_IMPLEMENTATION' tests/test_*.c tests/tool_*.c tests/fuzz/fuzz_*.c)))
# (The programs' object when the tests are built alike: one compile of the implementation
# fewer.)
ifeq ($(TEST_CC) $(TEST_WARN),$(CC) $(WARN))
TEST_LIB  = $(B)/llm.o
else
TEST_LIB  = $(B)/tests/llm.o
$(TEST_LIB): programs/llm.c llm.h | $(B)/tests
	$(TEST_CC) $(TEST_CFLAGS) -c -o $@ programs/llm.c
endif
lib_of = $(if $(filter $(1),$(API_ONLY)),$(TEST_LIB))

# The fuzz targets, built with a main() that replays files (tests/test_fuzz_replay.sh).
.SECONDEXPANSION:
$(B)/tests/fuzz_%$(EXE): tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(TEST_DEPS) $$(call lib_of,fuzz_$$*) | $(B)/tests
	$(TEST_CC) $(TEST_CFLAGS) -o $@ $< tests/fuzz/replay.c $(call lib_of,fuzz_$*) $(LDLIBS)

$(B)/tests/%$(EXE): tests/%.c $(TEST_DEPS) $$(call lib_of,$$*) | $(B)/tests
	$(TEST_CC) $(TEST_CFLAGS) -o $@ $< $(call lib_of,$*) $(LDLIBS)

# The tests and tools that reach internals are one program, tests/internals.c, which compiles
# the implementation once for all of them; each is a copy of it that runs the test of its name.
# (Those it does not include, as test_amx, build alone.)
INTERNAL_SRCS = $(filter tests/test_%.c tests/tool_%.c tests/fuzz/fuzz_%.c,$(patsubst %,tests/%,$(shell sed -n 's/^\#include "\(.*\.c\)"$$/\1/p' tests/internals.c)))
INTERNAL_BINS = $(patsubst %,$(B)/tests/%$(EXE),$(basename $(notdir $(INTERNAL_SRCS))))
$(B)/tests/internals$(EXE): tests/internals.c tests/fuzz/replay.c $(INTERNAL_SRCS) $(TEST_DEPS) | $(B)/tests
	$(TEST_CC) $(TEST_CFLAGS) -o $@ tests/internals.c $(LDLIBS)
$(INTERNAL_BINS): $(B)/tests/%$(EXE): $(B)/tests/internals$(EXE)
	cp $< $@

$(B) $(B)/tests:
	mkdir -p $@

test-build: $(PROGRAMS) $(TEST_BINS) $(TOOL_BINS) $(FUZZ_REPLAY)

test-suite: test-build
	@BUILD=$(B) sh tests/run_all.sh

# make test: tests/suite.sh's stages (the suite natively, under ASan + UBSan, valgrind and
# TSan), skipping a stage or check whose optional tool is absent; make test-all: the same
# with an absent tool taken as a failure, then every platform row and the fuzzers (.ci/run).
test: test-build
	@sh tests/suite.sh

# (The scripts get none of this make's variables: each stage and platform row sets its own.
# GCC_BUILD=build lets the gcc row reuse build/ when that was built with CC=gcc
# CFLAGS="-O2 -Werror".)
test-all: test-build
	@LLM_TEST_ALL=1 sh tests/suite.sh
	@GCC_BUILD="$(GCC_BUILD)" sh tests/platforms.sh
	+@$(MAKE) --no-print-directory fuzz
	@echo "test-all: the platforms and fuzzers passed too"; cat build/logs/total.txt

test-sanitize: test-build
	@sh tests/suite.sh asan valgrind tsan

test-platforms:
	@sh tests/platforms.sh

# libFuzzer targets: make fuzz FUZZ_SECONDS=N runs each for N seconds (new inputs go to
# build/fuzz/corpus/NAME, crashes to build/fuzz/crashes/NAME).
FUZZ_SECONDS ?= 60
# FUZZ_OPT=-O0: a fifth of the build time, for short runs (CI's 20 s a target), where the
# build took longer than the fuzzing; fewer inputs run in the time.
FUZZ_OPT ?= -O1
FUZZ_CFLAGS = -g $(FUZZ_OPT) -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
# All targets are one program (tests/fuzz/all.c: the instrumented implementation compiled
# once); build/fuzz/NAME is a copy of it that fuzzes NAME.
build/fuzz/all: tests/fuzz/all.c $(wildcard tests/fuzz/fuzz_*.c) llm.h tools/json.h tools/llm_convert.h tools/llm_gguf.h tools/llm_retype.h tools/llm_quant_vec.h | fuzz-need
	@mkdir -p build/fuzz
	clang $(FUZZ_CFLAGS) -o $@ tests/fuzz/all.c -lm

build/fuzz/fuzz_%: build/fuzz/all
	cp $< $@

.PRECIOUS: build/fuzz/fuzz_% build/fuzz/all

fuzz-need:
	@. tests/need.sh; need_clang fuzz "clang libclang-rt-14-dev" -fsanitize=fuzzer,address,undefined || exit 1

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
INSTALL_PROGRAMS = $(filter-out $(B)/simple$(EXE) $(B)/gen_model$(EXE) $(B)/bench_tokenize$(EXE) $(B)/npc$(EXE) $(B)/embed$(EXE),$(PROGRAMS))
ifeq ($(OPENMP),1)
  PC_OMP = -fopenmp
endif

# llm.pc and the CMake package files are written for this PREFIX at each install.
install: $(PROGRAMS)
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/lib/cmake/llm
	install -m 644 llm.h $(DESTDIR)$(PREFIX)/include/llm.h
	for p in $(INSTALL_PROGRAMS); do install -m 755 $$p $(DESTDIR)$(PREFIX)/bin/llm-$$(basename $$p); done
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' -e 's|@OMP_CFLAGS@|$(PC_OMP)|' \
	    -e 's|@OMP_LIBS@|$(PC_OMP)|' llm.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/llm.pc
	sed -e 's|@VERSION@|$(VERSION)|' cmake/llmConfigVersion.cmake.in > $(DESTDIR)$(PREFIX)/lib/cmake/llm/llmConfigVersion.cmake
	install -m 644 cmake/llmConfig.cmake $(DESTDIR)$(PREFIX)/lib/cmake/llm/llmConfig.cmake

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/include/llm.h $(DESTDIR)$(PREFIX)/lib/pkgconfig/llm.pc
	rm -f $(DESTDIR)$(PREFIX)/lib/cmake/llm/llmConfig.cmake $(DESTDIR)$(PREFIX)/lib/cmake/llm/llmConfigVersion.cmake
	-rmdir $(DESTDIR)$(PREFIX)/lib/cmake/llm 2>/dev/null
	for p in $(INSTALL_PROGRAMS); do rm -f $(DESTDIR)$(PREFIX)/bin/llm-$$(basename $$p); done

clean:
	rm -rf build

.PHONY: all run test test-all test-sanitize test-build test-suite test-platforms fuzz fuzz-build fuzz-need clean install uninstall
