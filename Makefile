# llm.h - build the tools, examples and tests.
#   make            tools and examples in build/ (native CPU, OpenMP when the compiler has it)
#   make run        convert the built-in model (models/kjv-tiny) and let it write a few verses
#   make test       build and run every test; prints "N passed, N failed, N skipped"
#   make PORTABLE=1 baseline x86-64 code, no -march=native
#   make OPENMP=0   no OpenMP (llm.h's own pthread pool)
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

PROGRAMS = build/convert build/generate build/chat build/simple build/tokenize build/bench_tokenize build/gen_model build/bench build/npc build/perplexity
TEST_SRCS = $(wildcard tests/test_*.c)
TEST_BINS = $(patsubst tests/%.c,build/tests/%,$(TEST_SRCS))
TOOL_BINS = $(patsubst tests/%.c,build/tests/%,$(wildcard tests/tool_*.c))

all: $(PROGRAMS)

build/convert: tools/convert.c tools/json.h tools/convert_chat.h tools/convert_tokenizer.h llm.h | build
	$(CC) $(ALL_CFLAGS) -o $@ tools/convert.c $(LDLIBS)

build/gen_model: tools/gen_model.c llm.h | build
	$(CC) $(ALL_CFLAGS) -o $@ tools/gen_model.c $(LDLIBS)

build/chat: examples/chat.c tools/json.h

build/%: examples/%.c llm.h tools/json.h $(wildcard examples/*.h) | build
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LDLIBS)

build/tests/%: tests/%.c llm.h tools/json.h tools/convert_chat.h $(wildcard tests/*.h) | build/tests
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LDLIBS)

build build/tests:
	mkdir -p $@

test: $(PROGRAMS) $(TEST_BINS) $(TOOL_BINS)
	@sh tests/run_all.sh

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
INSTALL_PROGRAMS = $(filter-out build/simple build/gen_model build/bench_tokenize build/npc,$(PROGRAMS))
ifeq ($(OPENMP),1)
  PC_OMP = -fopenmp
endif

build/llm.pc: llm.pc.in Makefile | build
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

.PHONY: all run test clean install uninstall
