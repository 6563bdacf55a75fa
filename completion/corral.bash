# bash completion for corral(1)                              -*- shell-script -*-
#
# Installed by `make install` as $(DATADIR)/bash-completion/completions/corral
# (bash-completion loads it the first time `corral` is completed); or
# `. completion/corral.bash` from a clone. Needs nothing of bash-completion:
# when its _command_offset is there, the command after `corral run [OPTIONS]`
# is completed as that command would be.
#
# The option lists are kept equal to what each sub-command's --help lists
# (tests/integration/completion.sh checks them).

_corral_run_opts='-j --journal --journal-strict --journal-key --journal-queue
 --tree --result --progress -q --quiet -v --verbose -t --timeout -k --kill-after
 -s --signal --preserve-status --foreground --wait-all --max-procs
 --no-parent-watch --stacks --core --core-filter --core-dir --core-budget
 --escape --sandbox --workspace --ro-bind --bind --share-net --dev-bind
 --tmpfs --sandbox-user --sandbox-git --hostname --uid --gid --clearenv
 --setenv --unsetenv --bwrap --pty --kill-wait --boundary -h --help
 -V --version'
# run options that take a value (the next word)
_corral_run_args='-j --journal --journal-key --journal-queue --result --progress
 -t --timeout -k --kill-after -s --signal --max-procs --stacks --core
 --core-filter --core-dir --core-budget --escape --workspace --ro-bind
 --bind --dev-bind --tmpfs --sandbox-user --sandbox-git --hostname --uid
 --gid --setenv --unsetenv --bwrap --kill-wait --boundary'
_corral_report_opts='--tree --format --json --perfetto --html -q --quiet
 --key -h --help'
_corral_verify_opts='--key --head --lines -h --help'
_corral_ps_opts='-s --stacks --json -h --help'
_corral_probe_opts='--json --bwrap -h --help'

# _corral_takes_arg SUB WORD: does option WORD of SUB take the next word?
_corral_takes_arg()
{
	local o
	case $1 in
	run) for o in $_corral_run_args; do [[ $2 == "$o" ]] && return 0; done ;;
	report) [[ $2 == @(--format|--perfetto|--html|--key) ]] && return 0 ;;
	verify) [[ $2 == @(--key|--head) ]] && return 0 ;;
	probe) [[ $2 == --bwrap ]] && return 0 ;;
	esac
	return 1
}

# _corral_value SUB OPTION CUR: COMPREPLY for OPTION's value
_corral_value()
{
	local cur=$3
	case $2 in
	-j | --journal | --journal-key | --result | --perfetto | --html | --key | --bwrap)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur"))
		;;
	--core-dir | --workspace | --tmpfs)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -d -- "$cur"))
		;;
	--ro-bind | --bind | --dev-bind)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur"))
		;;
	--escape) COMPREPLY=($(compgen -W 'off log deny kill' -- "$cur")) ;;
	--boundary) COMPREPLY=($(compgen -W 'auto landlock seccomp' -- "$cur")) ;;
	--sandbox-git) COMPREPLY=($(compgen -W 'ro hooks-ro rw' -- "$cur")) ;;
	--format) COMPREPLY=($(compgen -W 'text md json' -- "$cur")) ;;
	--stacks)
		COMPREPLY=($(compgen -W 'never timeout signal crash escape exit-left snapshot' -- "$cur"))
		;;
	--core) COMPREPLY=($(compgen -W 'never timeout signal crash escape' -- "$cur")) ;;
	--core-filter) COMPREPLY=($(compgen -W 'all root running name= max=' -- "$cur")) ;;
	-s | --signal)
		COMPREPLY=($(compgen -W 'TERM INT HUP QUIT KILL USR1 USR2 ALRM' -- "$cur"))
		;;
	--sandbox-user) COMPREPLY=($(compgen -u -- "$cur")) ;;
	--unsetenv) COMPREPLY=($(compgen -v -- "$cur")) ;;
	*) COMPREPLY=() ;; # a duration, a number, a name: nothing to offer
	esac
}

_corral()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev= sub= i w
	COMPREPLY=()
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}

	if ((COMP_CWORD == 1)); then
		COMPREPLY=($(compgen -W 'run report verify ps probe --help --version' -- "$cur"))
		return
	fi
	sub=${COMP_WORDS[1]}

	# --opt=VALUE: bash splits it at '=' (COMP_WORDBREAKS)
	if [[ $cur == = ]]; then
		_corral_value "$sub" "$prev" ""
		return
	fi
	if [[ $prev == = ]] && ((COMP_CWORD >= 3)); then
		_corral_value "$sub" "${COMP_WORDS[COMP_CWORD - 2]}" "$cur"
		return
	fi

	# Where do the options end? After `--` or the first operand (for run:
	# COMMAND, whose own words are its business).
	for ((i = 2; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ $w == -- ]]; then
			break
		elif [[ $w != -* ]]; then
			break
		elif [[ ${COMP_WORDS[i + 1]-} == = ]]; then
			((i += 2)) # --opt=VALUE
		elif _corral_takes_arg "$sub" "$w"; then
			((i++))
		fi
	done
	if ((i < COMP_CWORD)); then
		# past the options
		if [[ $sub == run ]]; then
			[[ ${COMP_WORDS[i]} == -- ]] && ((i++))
			if ((i == COMP_CWORD)); then
				COMPREPLY=($(compgen -c -- "$cur"))
			elif declare -F _command_offset >/dev/null; then
				_command_offset "$i"
			else
				compopt -o filenames 2>/dev/null
				COMPREPLY=($(compgen -f -- "$cur"))
			fi
		elif [[ $sub == @(report|verify) ]]; then
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		return
	fi

	if _corral_takes_arg "$sub" "$prev"; then
		_corral_value "$sub" "$prev" "$cur"
		return
	fi
	case $sub in
	run)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$_corral_run_opts" -- "$cur"))
		else
			COMPREPLY=($(compgen -c -- "$cur"))
		fi
		;;
	report | verify)
		if [[ $cur == -* ]]; then
			local v=_corral_${sub}_opts
			COMPREPLY=($(compgen -W "${!v}" -- "$cur"))
		else
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		;;
	ps)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$_corral_ps_opts" -- "$cur"))
		else
			# the running corrals of this user (`corral ps` lists them)
			COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" ps 2>/dev/null |
				awk '$1 ~ /^[0-9]+$/ { print $1 }')" -- "$cur"))
		fi
		;;
	probe) COMPREPLY=($(compgen -W "$_corral_probe_opts" -- "$cur")) ;;
	esac
} &&
	complete -F _corral corral
