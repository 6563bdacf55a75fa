#!/usr/bin/env bash
# Bash completion (completion/corral.bash, installed by make install and
# the .deb): sourced in a bare bash (no bash-completion package), it
# completes sub-commands, each sub-command's options, the values of the
# options that take a word from a fixed set, file names where an option
# takes a file, and leaves COMMAND's own words alone. Its option lists are
# those each sub-command's --help prints, no more, no fewer.
. "$(dirname "$0")/lib.sh"
need_corral
COMP=$ROOT/completion/corral.bash

mkdir -p "$T/dir/sub"
: >"$T/dir/journal.jsonl"
: >"$T/dir/jot"

# comp LINE: the sorted COMPREPLY for LINE with the cursor at its end (a
# trailing space: completing an empty word), words split as bash splits
# them for completion (COMP_WORDBREAKS: '=' is a word of its own)
comp() {
	bash --norc --noprofile -c '
		. "$1" || exit 1
		line=$2
		words=()
		rest=$line
		while [ -n "$rest" ]; do
			rest=${rest#"${rest%%[! ]*}"}
			[ -z "$rest" ] && break
			if [[ $rest == =* ]]; then
				words+=("="); rest=${rest#=}; continue
			fi
			w=${rest%%[ =]*}
			words+=("$w"); rest=${rest#"$w"}
		done
		[[ $line == *" " || $line == *= ]] && words+=("")
		COMP_WORDS=("${words[@]}")
		COMP_CWORD=$((${#words[@]} - 1))
		COMP_LINE=$line
		COMP_POINT=${#line}
		_corral
		printf "%s\n" "${COMPREPLY[@]}" | sort
	' comp "$COMP" "$1"
}

# want LINE EXPECTED...: COMPREPLY is exactly EXPECTED
want() {
	local line=$1
	shift
	local got exp
	got=$(comp "$line" | tr '\n' ' ')
	exp=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
	[ "$got" = "$exp" ] || fail "'$line<TAB>': got [$got], want [$exp]"
}
# has LINE WORD: COMPREPLY holds WORD; hasnt LINE WORD: it does not
has() { comp "$1" | grep -qxF -- "$2" || fail "'$1<TAB>' does not offer $2: [$(comp "$1" | tr '\n' ' ')]"; }
hasnt() { comp "$1" | grep -qxF -- "$2" && fail "'$1<TAB>' offers $2"; return 0; }

complete -p corral >/dev/null 2>&1 # (nothing here: a fresh bash below)
bash --norc --noprofile -c '. "$1" && complete -p corral' x "$COMP" | grep -q -- '-F _corral corral$' ||
	fail "sourcing the file does not register _corral for corral"

want "corral r" report run
want "corral " --help --version probe ps report run verify
want "corral v" verify
has "corral run --sa" --sandbox
want "corral run --sandbox-g" --sandbox-git
want "corral run --esc" --escape
want "corral run --escape " deny kill log off
want "corral run --escape=" deny kill log off
want "corral run --boundary l" landlock
want "corral run -t 5 --sandbox-git " hooks-ro ro rw
want "corral report --format " json md text
want "corral report --h" --help --html
want "corral verify --" --head --help --key --lines
want "corral ps --" --help --json --stacks
want "corral probe --" --bwrap --help --json
# a file where an option takes one
want "corral run -j $T/dir/jo" "$T/dir/journal.jsonl" "$T/dir/jot"
want "corral run --journal=$T/dir/jo" "$T/dir/journal.jsonl" "$T/dir/jot"
want "corral report --html $T/dir/j" "$T/dir/journal.jsonl" "$T/dir/jot"
want "corral run --core-dir $T/dir/" "$T/dir/sub"
want "corral verify $T/dir/jour" "$T/dir/journal.jsonl"
# a value that is a number or a duration: nothing to offer
want "corral run -t "
# COMMAND, then its own words: never corral's options
has "corral run -q -t 5 ec" echo
has "corral run -- ec" echo
hasnt "corral run -t 5 ls --j" --journal
hasnt "corral run -- ls --j" --journal
hasnt "corral run --escape=log ls --s" --sandbox
want "corral run -t 5 ls $T/dir/jou" "$T/dir/journal.jsonl"

# the option lists are the ones --help prints
help_opts() { # SUB: the options the sub-command's --help names
	if [ "$1" = run ]; then
		"$CORRAL" --help | sed -n '/^Options for run:/,/^$/p'
	else
		"$CORRAL" "$1" --help
	fi | grep -E '^ +-' | sed -E 's/^ +//; s/^(-[a-zA-Z]), /\1\n/' |
		grep -oE '^--?[a-zA-Z][a-zA-Z-]*' | sort -u
}
for sub in run report verify ps probe; do
	help_opts "$sub" >"$T/help.$sub"
	[ "$(wc -l <"$T/help.$sub")" -ge 2 ] || fail "corral $sub --help: no options found"
	comp "corral $sub -" >"$T/comp.$sub"
	diff -u "$T/help.$sub" "$T/comp.$sub" >"$T/diff.$sub" ||
		{ fail "corral $sub: the completion's options differ from --help's (- help, + completion):"; cat "$T/diff.$sub" >&2; }
done
done_test
