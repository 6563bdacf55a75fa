#!/usr/bin/env bash
# The ABI can grow (docs/api.md): a program built against this corral.h
# runs against a library whose caller-allocated structs grew (a later
# version, built here with -DCORRAL_TEST_GROW), and a program built against
# the grown header runs against this library: refused with -E2BIG only
# when it sets a field the library does not know. Neither library reads
# or writes past the caller's struct (tests/abi/abi_check.c). And the
# layout of version 0 still holds: fields only appended, frozen structs
# the same size, enum values unchanged (tests/abi/corral-0.layout).
. "$(dirname "$0")/lib.sh"
# Under make asan the library is instrumented: so must be what links it.
SAN=
nm -u "$BUILD/libcorral.a" 2>/dev/null | grep -q __asan_init && SAN="-fsanitize=address,undefined"

OLD_LIB=$BUILD
[ -e "$OLD_LIB/libcorral.so.0" ] || { fail "$OLD_LIB/libcorral.so.0 not built"; done_test; }

# ------------------------------------------------------------ the layout
cc -std=gnu11 -Wall -Werror -I"$ROOT/include" -o "$T/layout" "$ROOT/tests/abi/layout.c" ||
	fail "tests/abi/layout.c does not build"
"$T/layout" >"$T/layout.now"
n=0
while read -r line; do
	n=$((n + 1))
	grep -qxF -- "$line" "$T/layout.now" || {
		name=${line%% *}
		fail "layout of version 0 changed: '$line', now '$(grep -- "^$name " "$T/layout.now")' (append fields at the end only; docs/api.md)"
	}
done <"$ROOT/tests/abi/corral-0.layout"
[ "$n" -gt 250 ] || fail "baseline has only $n lines"
# ...and it holds every field and value there is (api_headers.sh: layout.c
# prints them all): a new one gets its line when it is added.
grep -vxF -f "$ROOT/tests/abi/corral-0.layout" "$T/layout.now" >"$T/layout.new" &&
	{ fail "not in tests/abi/corral-0.layout (append these lines: docs/api.md):"; cat "$T/layout.new" >&2; }

# ---------------------------------------------- a library whose structs grew
GROW=$T/grow
# -O0: the layout is what is tested, and the optimiser was most of this
# test's CPU (make test's budget, docs/testing.md).
env -u MAKEFLAGS -u MAKELEVEL make -s -j"$(nproc)" -C "$ROOT" BUILD="$GROW" \
	CFLAGS="-O0" CPPFLAGS=-DCORRAL_TEST_GROW "$GROW/libcorral.so.0" >"$T/grow.log" 2>&1 ||
	{ fail "building the grown library failed"; cat "$T/grow.log" >&2; done_test; }

# The programs: against this header (old) and the grown one (new).
for side in old new; do
	def=
	[ $side = new ] && def=-DCORRAL_TEST_GROW
	# shellcheck disable=SC2086
	cc -std=gnu11 -Wall -Werror $def $SAN -I"$ROOT/include" -o "$T/abi_$side" \
		"$ROOT/tests/abi/abi_check.c" -L"$OLD_LIB" -lcorral ||
		fail "abi_check ($side) does not build"
done

errno_of() { python3 -c "import errno; print(errno.$1)"; }

# kv KEY: the value of KEY=... in the last run's stdout
kv() { sed -n "s/^$1=//p" "$OUTF" | head -n 1; }

# abi PROGRAM LIBDIR [KNOB]: run it in the witness
abi() {
	local prog=$1 lib=$2
	shift 2
	RUN_LABEL="$prog program, ${lib##*/} library${1:+, knob $1}"
	run -- env LD_LIBRARY_PATH="$lib" "$T/abi_$prog" run "$@"
	expect_rc 0 "abi_check"
}

# The program ran the command and the library kept to the caller's size.
ran_ok() {
	expect_eq "$(kv new)" 0 "corral_new"
	expect_eq "$(kv wait)" 0 "corral_wait"
	expect_eq "$(kv exit)" 3 "exit code through corral_result"
	expect_eq "$(kv survivors)" 0 "survivors"
	expect_eq "$(kv canary)" ok "bytes past the caller's corral_result"
	expect_eq "$(kv cfg_pad)" ok "bytes past the caller's corral_config"
	expect_eq "$(kv free)" 0 "corral_free"
}

# Old program, this library (the baseline).
abi old "$OLD_LIB"
ran_ok
old_size=$(kv size)

# Old program, grown library: the fields the program does not have take
# their defaults (the grown library refuses otherwise), nothing past its
# structs is read or written.
abi old "$GROW"
ran_ok
[ "$(kv size)" = "$old_size" ] || fail "old program: size $(kv size)"

# New program, this library: runs; what the library does not know reads 0.
abi new "$OLD_LIB"
ran_ok
new_size=$(kv size)
[ "${new_size:-0}" -gt "${old_size:-0}" ] || fail "the grown header is not larger ($new_size <= $old_size)"
expect_eq "$(kv grow_out)" 0 "a result field the library does not know"

# New program, this library, setting the unknown field: -E2BIG, no run.
abi new "$OLD_LIB" 5
expect_eq "$(kv new)" "-$(errno_of E2BIG)" "unknown setting" ||
	note "hint: if struct corral_config ends with padding, the grown field sits inside the old sizeof, where an old library cannot see it is set (docs/api.md, rule 5)"
grep -q 'newer corral.h' "$OUTF" || fail "the message does not say why: $(kv error)"
[ -z "$(kv exit)" ] || fail "the command ran with a setting the library does not know"

# New program, grown library: the grown field round-trips, default 7.
abi new "$GROW"
ran_ok
expect_eq "$(kv grow_out)" 7 "default of the grown field"
abi new "$GROW" 5
ran_ok
expect_eq "$(kv grow_out)" 5 "the grown field as set"

done_test
