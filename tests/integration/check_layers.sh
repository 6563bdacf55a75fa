#!/usr/bin/env bash
# make check-layers (tests/check-layers.py) holds tracer/ to the picture in
# docs/design.md, "Layers": the tree as built keeps to it, and each way of
# breaking it is caught: a call up a row, a call along a row without an
# arrow, an include of an upper file's header, a file not drawn, a file
# drawn in another folder than its own, two headers of one name, a CLI
# that uses more of the library than corral.h, a sandbox/ or report/ file
# or a tracer/base/ one that uses a folder it must not; and the real tree
# with one arrow rubbed out of the picture.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip_test "python3 not found"
command -v nm >/dev/null || skip_test "nm not found (binutils)"
CHECK=$ROOT/tests/check-layers.py

RUN_LABEL="the tree"
[ -f "$BUILD/obj/tracer/core/loop.o" ] || { fail "$BUILD/obj not built (make all)"; done_test; }
python3 "$CHECK" --root "$ROOT" --build "$BUILD" >"$T/out" 2>&1 ||
	fail "the tree does not keep to docs/design.md: $(cat "$T/out")"

RUN_LABEL="the tree, an arrow rubbed out of the picture"
mkdir -p "$T/real/docs"
ln -s "$ROOT/tracer" "$T/real/tracer"
ln -s "$ROOT/cli" "$T/real/cli"
ln -s "$ROOT/sandbox" "$T/real/sandbox"
ln -s "$ROOT/report" "$T/real/report"
sed 's/`live.c -> ending.c` and //' "$ROOT/docs/design.md" >"$T/real/docs/design.md"
cmp -s "$ROOT/docs/design.md" "$T/real/docs/design.md" && fail "the edit changed nothing"
if python3 "$CHECK" --root "$T/real" --build "$BUILD" >"$T/out" 2>&1; then
	fail "live.c's calls into ending.c were not caught"
else
	grep -q 'tracer/stacks/live.c uses corral_stop_all of tracer/core/ending.c, on its own row' "$T/out" ||
		fail "not the expected complaint: $(cat "$T/out")"
fi

# A small tree of its own, in folders as the real one: core/top.c above
# core/mid.c and journal/side.c (one row) above base/bottom.c, one arrow
# mid -> side; sandbox/sb.c and report/rep.c use base/bottom.c.
mini() { # label, expected rc, then "file=C source" pairs
	local label=$1 want=$2
	shift 2
	RUN_LABEL="mini: $label"
	rm -rf "$T/m"
	mkdir -p "$T/m/docs" "$T/m/tracer/core" "$T/m/tracer/journal" "$T/m/tracer/base" \
		"$T/m/sandbox" "$T/m/report" "$T/m/cli"
	cat >"$T/m/docs/design.md" <<'DOC'
## Layers

```
 top    core/top.c
        ---------------------
        core/mid.c  journal/side.c
        ---------------------
 bottom base/: bottom.c
```

On its own row along an arrow only (`mid.c -> side.c`).

## Next
DOC
	printf 'int bottom_fn(void) { return 1; }\n' >"$T/m/tracer/base/bottom.c"
	printf 'int bottom_fn(void);\n' >"$T/m/tracer/base/bottom.h"
	printf '#include "bottom.h"\nint top_fn(void) { return bottom_fn(); }\n' >"$T/m/tracer/core/top.c"
	printf 'int top_fn(void);\n' >"$T/m/tracer/core/top.h"
	printf 'int mid_fn(void) { return 2; }\n' >"$T/m/tracer/core/mid.c"
	printf 'int side_fn(void) { return 3; }\n' >"$T/m/tracer/journal/side.c"
	printf 'int bottom_fn(void);\nint sb_fn(void) { return bottom_fn(); }\n' >"$T/m/sandbox/sb.c"
	printf 'int bottom_fn(void);\nint rep_fn(void) { return bottom_fn(); }\n' >"$T/m/report/rep.c"
	printf 'int corral_api(void);\nint main(void) { return corral_api(); }\n' >"$T/m/cli/main.c"
	printf 'int corral_api(void) { return 0; }\n' >>"$T/m/tracer/core/top.c"
	local kv
	for kv in "$@"; do
		case $kv in =*) rm -f "$T/m/${kv#=}"; continue ;; esac
		printf '%s\n' "${kv#*=}" >"$T/m/${kv%%=*}"
	done
	local c inc=() sum o hdr obj
	for c in "$T"/m/tracer/*/; do inc+=(-I"$c"); done
	# One source with the same headers compiles to the same object, and a
	# mini changes one or two files: objects are kept by content (source
	# and every header), so each mini compiles only what it changed (the
	# compiler was most of this test's time: 8 files x 15 minis).
	hdr=$(cat "$T"/m/tracer/*/*.h | md5sum)
	hdr=${hdr%% *}
	mkdir -p "$T/cc" "$T"/m/b/obj/{tracer/{core,journal,base},sandbox,report,cli}
	while read -r sum c; do
		o=$T/m/b/obj/${c#"$T"/m/}
		obj=$T/cc/$sum.$hdr.o
		[ -f "$obj" ] || cc -c "${inc[@]}" -o "$obj" "$c" ||
			{ fail "cannot compile $c"; return; }
		ln -f "$obj" "${o%.c}.o"
	done < <(md5sum "$T"/m/tracer/*/*.c "$T"/m/sandbox/*.c "$T"/m/report/*.c "$T"/m/cli/*.c)
	python3 "$CHECK" --root "$T/m" --build "$T/m/b" >"$T/out" 2>&1
	local rc=$?
	if [ "$rc" != "$want" ]; then
		fail "exit $rc, expected $want: $(cat "$T/out")"
	fi
}
mini "as drawn" 0
mini "a call up a row" 1 'tracer/base/bottom.c=int top_fn(void); int bottom_fn(void) { return top_fn(); }'
mini "along its row, with the arrow" 0 'tracer/core/mid.c=int side_fn(void); int mid_fn(void) { return side_fn(); }'
mini "along its row, against the arrow" 1 'tracer/journal/side.c=int mid_fn(void); int side_fn(void) { return mid_fn(); }'
mini "an upper header included" 1 'tracer/base/bottom.c=#include "top.h"
int bottom_fn(void) { return 1; }'
mini "a file not drawn" 1 'tracer/core/extra.c=int extra_fn(void) { return 4; }'
mini "a file drawn in another folder" 1 '=tracer/journal/side.c' 'tracer/core/side.c=int side_fn(void) { return 3; }'
mini "two headers of one name" 1 'tracer/core/bottom.h=int bottom_fn(void);'
mini "the CLI past corral.h" 1 'cli/main.c=int bottom_fn(void); int main(void) { return bottom_fn(); }'
mini "sandbox/ on tracer/journal/" 1 'sandbox/sb.c=int side_fn(void); int sb_fn(void) { return side_fn(); }'
mini "sandbox/ on tracer/core/" 1 'sandbox/sb.c=int mid_fn(void); int sb_fn(void) { return mid_fn(); }'
mini "report/ on tracer/journal/" 0 'report/rep.c=int side_fn(void); int rep_fn(void) { return side_fn(); }'
mini "report/ on tracer/core/" 1 'report/rep.c=int mid_fn(void); int rep_fn(void) { return mid_fn(); }'
mini "tracer/base/ on sandbox/" 1 'tracer/base/bottom.c=int sb_fn(void); int bottom_fn(void) { return sb_fn(); }'


# One writer per part of struct corral (tests/check-owners.py): the tree
# keeps to it, and a part taken writable by another file, a part that is
# not const, a part the docs do not list are each caught.
OWNERS=$ROOT/tests/check-owners.py
RUN_LABEL="owners: the tree"
python3 "$OWNERS" --root "$ROOT" >"$T/out" 2>&1 ||
	fail "a part of struct corral has more than one writer: $(cat "$T/out")"
owners() { # label, expected complaint (empty: none), then "file=source"
	local label=$1 want=$2
	shift 2
	RUN_LABEL="owners: $label"
	rm -rf "$T/o"
	mkdir -p "$T/o/docs" "$T/o/tracer/low"
	printf '## Who writes what\n\n| part | owner |\n|---|---|\n| `c->phase` | phase.c |\n\n## Next\n' >"$T/o/docs/design.md"
	printf 'struct phase_part { int now; };\nstruct corral {\n\tint n;\n\tconst struct phase_part phase;\n};\n' >"$T/o/tracer/internal.h"
	printf 'void f(struct corral *c) { OWN(c, phase)->now = 1; }\n' >"$T/o/tracer/low/phase.c"
	printf 'int g(const struct corral *c) { return c->phase.now; }\n' >"$T/o/tracer/engine.c"
	local kv
	for kv in "$@"; do
		printf '%s\n' "${kv#*=}" >"$T/o/${kv%%=*}"
	done
	if python3 "$OWNERS" --root "$T/o" >"$T/out" 2>&1; then
		[ -z "$want" ] || fail "not caught ($want)"
	else
		[ -n "$want" ] || fail "caught: $(cat "$T/out")"
		grep -q -- "$want" "$T/out" || fail "not the expected complaint: $(cat "$T/out")"
	fi
}
owners "as declared" ""
owners "another file takes it writable" 'tracer/engine.c takes c->phase writable' \
	'tracer/engine.c=void g(struct corral *c) { OWN(c, phase)->now = 2; }'
owners "a part not const" 'part phase is not const' \
	'tracer/internal.h=struct corral { struct phase_part phase; };'
owners "a part without its file" 'part ending has no owner' \
	'tracer/internal.h=struct corral { const struct phase_part phase; const struct ending_part ending; };'
owners "a part the docs do not list" 'does not name the part `c->snap`' \
	'tracer/internal.h=struct corral { const struct phase_part phase; const struct snap_part snap; };' \
	'tracer/snap.c=int s;'

done_test
