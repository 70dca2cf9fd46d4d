# tapas: PGXS build of the extension, plus the kernel unit tests and benchmarks.
#
#   make && make install          build and install the extension (PG_CONFIG selects the server)
#   make unit                     build and run the pure-C kernel unit tests (no server)
#   make bench                    build and run the kernel benchmarks
#   make check-asan               the kernel unit tests again, built with AddressSanitizer and
#                                 UBSan into test/build-asan
#   make installcheck             pg_regress against a running server that preloads tapas
#                                 (test/check starts one and runs everything)
#
# Warnings are errors only when asked for (WERROR=1: test/check and .ci/run
# pass it), so that a plain `make && make install` still builds when a newer
# compiler adds warnings.
#
# Instruction set: tapas.so and the kernel tests and benchmarks are built
# alike, with MARCH (empty: baseline x86-64), so the library loads on any
# x86-64 that Debian 12 runs on and the tests exercise the kernels as
# shipped.  Where SIMD pays, the kernel picks it at run time (recon/fwht.c:
# target_clones for AVX-512, AVX2 and baseline).  test/bench/march-policy.sh
# measures what -march=x86-64-v2 would gain.

EXTENSION  = tapas
EXTVERSION = 0.3

# Every .c under src/ belongs to the shared library; kernels (util, lstore,
# recon, attacks) are also compiled on their own for the unit tests and benchmarks.
SRCS        = $(sort $(wildcard src/*.c src/*/*.c))
MODULE_big  = tapas
OBJS        = $(SRCS:.c=.o)
KERNEL_SRCS = $(sort $(wildcard src/util/*.c src/lstore/*.c src/recon/*.c src/attacks/*.c))

# The install script is assembled from one fragment per module (src/sql/NN_*.sql),
# so each module declares its own SQL objects next to its code.
SQL_PARTS   = $(sort $(wildcard src/sql/*.sql))
DATA_built  = $(EXTENSION)--$(EXTVERSION).sql
# earlier versions' scripts, frozen, and the scripts that update from them
DATA        = $(sort $(wildcard src/sql/upgrade/*.sql))

LIBS_KERNEL = -lflint -lgmp -llapacke -lopenblas -lroaring -lglpk -lm
# liblinear is no longer part of tapas.so: it is the oracle of the logistic
# fit's unit tests and the baseline of its benchmark (attacks/logistic.c)
LIBS_TEST   = $(LIBS_KERNEL) -llinear
PG_CPPFLAGS = -I$(srcdir)/src -I/usr/include/flint
WERROR     ?= 0
ifeq ($(WERROR),1)
WERROR_FLAG = -Werror
endif
MARCH      ?=
PG_CFLAGS   = $(MARCH) $(WERROR_FLAG) -MMD -MP
SHLIB_LINK += $(LIBS_KERNEL)

REGRESS     = $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql)))
EXTRA_CLEAN = test/build test/build-asan test/build-v2 test/build-base $(OBJS:.o=.d)

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# header dependencies of the server objects (written by -MMD): a change to a
# header such as ledger_int.h must rebuild every object that includes it
-include $(OBJS:.o=.d)

$(EXTENSION)--$(EXTVERSION).sql: $(SQL_PARTS)
	cat $^ > $@

# ---------------------------------------------------------------------------
# Kernel unit tests and benchmarks: plain C, no PostgreSQL headers.
# ---------------------------------------------------------------------------
KCC      ?= cc
KCFLAGS  ?= -std=gnu99 -O2 -g $(MARCH) -Wall -Wextra $(WERROR_FLAG) \
            -Wdeclaration-after-statement -Wno-unused-parameter
KCPPFLAGS = -Isrc -Itest/unit -I/usr/include/flint
KBUILD    = test/build
KOBJS     = $(patsubst src/%.c,$(KBUILD)/obj/%.o,$(KERNEL_SRCS))
UNIT_SRCS = $(sort $(wildcard test/unit/*/t-*.c))
UNIT_BINS = $(patsubst test/unit/%.c,$(KBUILD)/unit/%,$(UNIT_SRCS))
BENCH_SRCS = $(sort $(wildcard test/bench/b-*.c))
BENCH_BINS = $(patsubst test/bench/%.c,$(KBUILD)/bench/%,$(BENCH_SRCS))

# Objects depend on the flags they were built with: a change of MARCH,
# WERROR or KCFLAGS rebuilds them (make alone only compares times).
FORCE:
$(KBUILD)/flags: FORCE
	@mkdir -p $(dir $@)
	@echo '$(KCC) $(KCFLAGS) $(KCPPFLAGS)' | cmp -s - $@ || echo '$(KCC) $(KCFLAGS) $(KCPPFLAGS)' > $@
$(KBUILD)/server-flags: FORCE
	@mkdir -p $(dir $@)
	@echo '$(CC) $(CFLAGS) $(CPPFLAGS)' | cmp -s - $@ || echo '$(CC) $(CFLAGS) $(CPPFLAGS)' > $@
$(OBJS): $(KBUILD)/server-flags

$(KBUILD)/obj/%.o: src/%.c $(KBUILD)/flags
	@mkdir -p $(dir $@)
	$(KCC) $(KCFLAGS) $(KCPPFLAGS) -MMD -MP -c $< -o $@

# header dependencies of the kernel objects (written by -MMD)
-include $(KOBJS:.o=.d)

$(KBUILD)/libtapas_kernels.a: $(KOBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(KBUILD)/unit/%: test/unit/%.c $(KBUILD)/libtapas_kernels.a test/unit/tapas_test.h
	@mkdir -p $(dir $@)
	$(KCC) $(KCFLAGS) $(KCPPFLAGS) $< -o $@ $(KBUILD)/libtapas_kernels.a $(LIBS_TEST)

$(KBUILD)/bench/%: test/bench/%.c $(KBUILD)/libtapas_kernels.a
	@mkdir -p $(dir $@)
	$(KCC) $(KCFLAGS) -O3 $(KCPPFLAGS) $< -o $@ $(KBUILD)/libtapas_kernels.a $(LIBS_TEST)

# The same kernels and unit tests under AddressSanitizer and UBSan, in their
# own build directory; any report fails the test that triggered it.
ASAN_FLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ASAN_ENV   = ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1

.PHONY: unit unit-build bench bench-build check-asan FORCE
check-asan:
	@$(MAKE) --no-print-directory KBUILD=test/build-asan KCFLAGS="$(KCFLAGS) $(ASAN_FLAGS)" unit-build
	@$(ASAN_ENV) sh test/run-unit $(patsubst $(KBUILD)/%,test/build-asan/%,$(UNIT_BINS))

unit-build: $(UNIT_BINS)
unit: unit-build
	@sh test/run-unit $(UNIT_BINS)

bench-build: $(BENCH_BINS)
bench: bench-build
	@for b in $(BENCH_BINS); do echo "== $$b"; $$b || exit 1; done
