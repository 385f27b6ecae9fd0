# ftrec / ftana build.  `make` builds both programs, `make check` runs every test
# (unit tests under ASan+UBSan, live tests as root, the kernel lab when qemu is there).
#
# Sources are discovered, not listed: a new .c in format/, record/, decode/, import/,
# reports/ or analyze/ is picked up; */main.c is the program entry, everything else
# goes into the module's library so tests can link it.  BUILD lets parallel builds use separate trees.

BUILD    ?= build
CC       ?= cc
PKGS     := libzstd libtraceevent libtracefs sqlite3

# A missing library is named here, before anything is compiled, not discovered
# later as a missing header. `make clean` and `make deps` (which installs them)
# need none; cmocka only the unit tests.
DEB_libzstd := libzstd-dev
DEB_libtraceevent := libtraceevent-dev
DEB_libtracefs := libtracefs-dev
DEB_sqlite3 := libsqlite3-dev
DEB_libtracecmd := libtracecmd-dev
DEB_cmocka := libcmocka-dev
DEB_readline := libreadline-dev
ifneq ($(if $(MAKECMDGOALS),$(filter-out clean deps,$(MAKECMDGOALS)),all),)
NEEDED_PKGS := $(PKGS) libtracecmd readline $(if $(filter check test-bins %/tests/%,$(MAKECMDGOALS)),cmocka)
ifeq ($(shell command -v pkg-config 2>/dev/null),)
$(error missing pkg-config (Debian: apt-get install pkg-config, or run 'make deps'))
endif
MISSING_PKGS := $(strip $(foreach p,$(NEEDED_PKGS),$(shell pkg-config --exists $(p) || echo $(p))))
ifneq ($(MISSING_PKGS),)
$(error missing $(MISSING_PKGS) (Debian: apt-get install $(foreach p,$(MISSING_PKGS),$(DEB_$(p))), or run 'make deps'))
endif
endif
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) libtracecmd 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
WARN     := -Wall -Wextra -Wno-unused-parameter -Wshadow -Wformat=2
CFLAGS   ?= -O2 -g
ALL_CFLAGS = $(CFLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE -I. -Iformat -I$(BUILD)/gen $(PKG_CFLAGS) -MMD -MP
SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LIBS     := $(PKG_LIBS) -lpthread -lm
# ftana also reads trace-cmd's trace.dat (decode/decode_tracedat.c), and its `sql` shell
# edits lines with readline (analyze/cmd_sql_shell.c); ftrec does neither.
ANA_LIBS := $(shell pkg-config --libs libtracecmd readline 2>/dev/null) $(LIBS)
# ftrec must run on hosts without our libraries: link it statically (see README).
STATIC_LIBS := -static -Wl,--start-group $(shell pkg-config --static --libs libtracefs libtraceevent libzstd 2>/dev/null) -lpthread -ldl -Wl,--end-group

# One library per folder, linked in layer order (docs/ARCHITECTURE.md): a folder's code
# may call only the folders after it in LAYERS, so a call back up fails to link, and
# tools/layers.sh (make check) refuses an #include that goes up or round.
#   ftana: analyze -> export -> reports -> import -> store -> decode -> format, common
#   ftrec: record -> format, common
LAYERS       := analyze export reports import store decode format common
layer_src     = $(filter-out $(1)/main.c,$(wildcard $(1)/*.c))
ANA_LAYERS   := analyze export reports import store decode
$(foreach l,$(LAYERS) record,$(eval SRC_$(l) := $(call layer_src,$(l))))
SRC_store    += $(BUILD)/schema_sql.c
ANA_SRC      := $(foreach l,$(ANA_LAYERS),$(SRC_$(l)))
SQL_FILES   := $(sort $(wildcard schema/*.sql schema/reports/*.sql))
UNIT_TESTS  := $(patsubst tests/%.c,%,$(wildcard tests/test_*.c))

obj = $(patsubst %.c,$(1)/obj/%.o,$(2))

.SECONDARY:
.PHONY: all static check unit-tests test-bins bench demo deps lab samples clean
all: $(BUILD)/ftrec $(BUILD)/ftana $(BUILD)/ftzdump

static: $(BUILD)/ftrec

# ---------------------------------------------------------------- normal build
$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(foreach l,$(LAYERS) record,$(eval $(BUILD)/lib$(l).a: $(call obj,$(BUILD),$(SRC_$(l)))))
ANA_LIBS_A  = $(foreach l,$(ANA_LAYERS) format common,$(1)/lib$(l).a)
REC_LIBS_A  = $(1)/librecord.a $(1)/libformat.a $(1)/libcommon.a
$(BUILD)/%.a:
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/ftrec: $(call obj,$(BUILD),record/main.c) $(call REC_LIBS_A,$(BUILD))
	$(CC) $(CFLAGS) -o $@ $^ $(STATIC_LIBS)

$(BUILD)/ftana: $(call obj,$(BUILD),analyze/main.c) $(call ANA_LIBS_A,$(BUILD))
	$(CC) $(CFLAGS) -o $@ $^ $(ANA_LIBS)

# Section lister and independent event counter, for debugging, tests and bench.
$(BUILD)/ftzdump: $(call obj,$(BUILD),tools/ftzdump.c) $(BUILD)/libformat.a $(BUILD)/libcommon.a
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS)

BENCH_BINS := $(patsubst bench/%.c,$(BUILD)/bench/%,$(wildcard bench/*.c))
$(BUILD)/bench/%: $(call obj,$(BUILD),bench/%.c) $(call ANA_LIBS_A,$(BUILD))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(ANA_LIBS)

# SQL is kept in schema/*.sql and compiled in, so it can be read and run by hand.
$(BUILD)/embed: tools/embed.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -o $@ $<
$(BUILD)/schema_sql.c: $(BUILD)/embed $(SQL_FILES)
	$(BUILD)/embed $(SQL_FILES) > $@
# The report table is every reports/*.c that defines a `struct report_def report_NAME_def`:
# a new report is its own files only, no shared list to edit (analyze/cmd_report.c).
REPORT_SRC := $(sort $(wildcard reports/report_*.c))
$(BUILD)/gen/report_list.h: $(REPORT_SRC)
	@mkdir -p $(dir $@)
	sed -n 's/^const struct report_def report_\([a-z0-9_]*\)_def = .*/REPORT(\1)/p' $^ > $@.tmp
	cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(BUILD)/obj/reports/registry.o $(BUILD)/san/obj/reports/registry.o $(BUILD)/fuzz/obj/reports/registry.o: $(BUILD)/gen/report_list.h
$(BUILD)/obj/$(BUILD)/schema_sql.o: $(BUILD)/schema_sql.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# ---------------------------------------------------------------- sanitized build (tests)
SAN := $(BUILD)/san
$(SAN)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -c $< -o $@
$(SAN)/obj/$(BUILD)/schema_sql.o: $(BUILD)/schema_sql.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -c $< -o $@

$(foreach l,$(LAYERS) record,$(eval $(SAN)/lib$(l).a: $(call obj,$(SAN),$(SRC_$(l)))))

# the unit tests reach into any layer, so they link all of them (record before format)
SAN_LIBS := $(foreach l,$(ANA_LAYERS) record format common,$(SAN)/lib$(l).a)
$(SAN)/ftrec: $(call obj,$(SAN),record/main.c) $(call REC_LIBS_A,$(SAN))
	$(CC) $(SAN_FLAGS) -o $@ $^ $(LIBS)
$(SAN)/ftana: $(call obj,$(SAN),analyze/main.c) $(call ANA_LIBS_A,$(SAN))
	$(CC) $(SAN_FLAGS) -o $@ $^ $(ANA_LIBS)
$(SAN)/tests/%: $(SAN)/obj/tests/%.o $(SAN_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(SAN_FLAGS) -o $@ $< $(SAN_LIBS) $(ANA_LIBS) -lcmocka

test-bins: $(addprefix $(SAN)/tests/,$(UNIT_TESTS)) $(SAN)/ftrec $(SAN)/ftana $(BUILD)/ftrec $(BUILD)/ftana $(BUILD)/ftzdump

# Unit tests, live tests (tests/test_*.sh) and the kernel lab; one summary line at the end.
check: test-bins
	BUILD=$(BUILD) tests/run.sh

bench: all $(BENCH_BINS)
	BUILD=$(BUILD) bench/run.sh

demo: all
	BUILD=$(BUILD) tools/demo.sh

deps:
	tools/deps.sh

lab: all
	BUILD=$(BUILD) tests/lab/run.sh

samples: all
	BUILD=$(BUILD) tests/lab/samples.sh
	$(MAKE) BUILD=$(BUILD) pictures

# The README's pictures, drawn by ftana from the captures in samples/ (no lab needed).
.PHONY: pictures
pictures: $(BUILD)/ftana
	@mkdir -p docs/img
	$(BUILD)/ftana report stacks samples/block-dd-stacks.ftz --svg -o docs/img/flame-stacks.svg
	$(BUILD)/ftana report funcgraph samples/funcgraph.ftz --svg -o docs/img/flame-funcgraph.svg
	$(BUILD)/ftana report iolat samples/block-dd-stacks.ftz --heatmap -o docs/img/heatmap-iolat.svg

clean:
	rm -rf $(BUILD)

# ---------------------------------------------------------------- fuzz (libFuzzer)
# `make fuzz` builds the libFuzzer targets tests/fuzz/fuzz_*.c (clang, ASan+UBSan,
# the whole of format/ and ftana's library instrumented for coverage) and runs each for
# FUZZ_TIME seconds from seeds (samples/, trace.dat files, tests/hostile's captures)
# plus tests/fuzz/regress/, every input a past run crashed on. `make check` runs
# them briefly through tests/test_fuzz.sh when clang's libFuzzer is installed
# (Debian: clang, libclang-rt-14-dev; `make deps`).
FUZZ_CC      ?= clang
FUZZ_TIME    ?= 300
FUZZ         := $(BUILD)/fuzz
FUZZ_FLAGS   := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
		-fno-sanitize-recover=undefined
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,$(FUZZ)/%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_RT      := $(wildcard $(shell $(FUZZ_CC) -print-file-name=libclang_rt.fuzzer-$(shell uname -m).a 2>/dev/null))
.PHONY: fuzz fuzz-bins

$(FUZZ)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_FLAGS) -c $< -o $@
$(FUZZ)/obj/$(BUILD)/schema_sql.o: $(BUILD)/schema_sql.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_FLAGS) -c $< -o $@
$(FUZZ)/libfuzzana.a: $(call obj,$(FUZZ),$(ANA_SRC) $(SRC_format) $(SRC_common) tests/fuzz/harness.c)
$(FUZZ)/fuzz_%: $(FUZZ)/obj/tests/fuzz/fuzz_%.o $(FUZZ)/libfuzzana.a
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $@ $^ $(ANA_LIBS)

fuzz-bins: $(FUZZ_TARGETS)
fuzz: fuzz-bins
	BUILD=$(BUILD) FUZZ_TIME=$(FUZZ_TIME) tests/test_fuzz.sh
ifneq ($(FUZZ_RT),)
check: fuzz-bins
endif

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# ---------------------------------------------------------------- man pages, install
# A man page is made from its program's own --help output (tools/mkman.sh runs
# `PROG --help` and `PROG CMD --help` for every command listed under "Commands:"),
# so it cannot drift from what the program prints. A page is added with its rule
# in MAN_PAGES (before `all:` reads it: make expands a rule's prerequisites at once,
# so a later `+=` would not reach `all`). `make install PREFIX=/usr DESTDIR=/tmp/pkg` (PREFIX defaults
# to /usr/local) installs the programs to $(DESTDIR)$(PREFIX)/bin and the pages
# to $(DESTDIR)$(PREFIX)/share/man/man1.
PREFIX  ?= /usr/local
DESTDIR ?=
MAN_PAGES := $(BUILD)/man/ftrec.1 $(BUILD)/man/ftana.1
.PHONY: man install
all: $(MAN_PAGES)
man: $(MAN_PAGES)

$(BUILD)/man/ftrec.1: $(BUILD)/ftrec tools/mkman.sh
	@mkdir -p $(dir $@)
	tools/mkman.sh -a -d "record Linux ftrace ring buffers into .ftz files for ftana" $(BUILD)/ftrec >$@.tmp
	mv $@.tmp $@

# ftana's page: its commands, and every report's help ("ftana report NAME --help").
$(BUILD)/man/ftana.1: $(BUILD)/ftana tools/mkman.sh
	@mkdir -p $(dir $@)
	$(BUILD)/ftana report --help | awk '/^reports:/ { on = 1; next } on && NF { print "report " $$1 }' | \
		xargs -d '\n' tools/mkman.sh -a -d "analyse ftrec captures and trace-cmd trace.dat files offline" \
		$(BUILD)/ftana >$@.tmp
	mv $@.tmp $@

install: $(BUILD)/ftrec $(BUILD)/ftana $(MAN_PAGES)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BUILD)/ftrec $(BUILD)/ftana $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(MAN_PAGES) $(DESTDIR)$(PREFIX)/share/man/man1/
