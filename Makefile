# llm.h - build the tools, examples and tests.
#   make            tools and examples in build/ (native CPU, OpenMP when the compiler has it)
#   make test       build and run every test; prints "N passed, N failed, N skipped"
#   make PORTABLE=1 baseline x86-64 code, no -march=native
#   make OPENMP=0   no OpenMP
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
endif
ALL_CFLAGS = $(WARN) $(CFLAGS) $(ARCH_FLAGS) $(OMP_FLAGS)
LDLIBS   = -lm

PROGRAMS = build/convert build/generate build/gen_model
TEST_SRCS = $(wildcard tests/test_*.c)
TEST_BINS = $(patsubst tests/%.c,build/tests/%,$(TEST_SRCS))
TOOL_BINS = $(patsubst tests/%.c,build/tests/%,$(wildcard tests/tool_*.c))

all: $(PROGRAMS)

build/convert: tools/convert.c tools/json.h llm.h | build
	$(CC) $(ALL_CFLAGS) -o $@ tools/convert.c $(LDLIBS)

build/gen_model: tools/gen_model.c llm.h | build
	$(CC) $(ALL_CFLAGS) -o $@ tools/gen_model.c $(LDLIBS)

build/%: examples/%.c llm.h | build
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LDLIBS)

build/tests/%: tests/%.c llm.h tools/json.h $(wildcard tests/*.h) | build/tests
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LDLIBS)

build build/tests:
	mkdir -p $@

test: $(PROGRAMS) $(TEST_BINS) $(TOOL_BINS)
	@sh tests/run_all.sh

clean:
	rm -rf build

.PHONY: all test clean
