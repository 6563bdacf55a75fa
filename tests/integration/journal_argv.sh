#!/usr/bin/env bash
# The journal's exec lines tell the truth about argv and the executable,
# however corral reads them (tracer/stacks/execstack.c: from the new image's stack
# at the exec stop; /proc/PID/cmdline when that does not apply). The
# witness is the process itself: fixtures/argv_self writes, in its own
# words, the argv main() got and readlink(/proc/self/exe); a 32-bit program
# writes its argv from its own stack. Every exec line is compared with it,
# pid by pid, byte for byte: odd bytes, empty strings, no environment, an
# argv longer than corral's first read, more pointers than the first read
# holds, a 1.5 MiB argv, an argv-less exec, a symlink, a relative path, a
# script, a 32-bit tracee, an execute-only (non-dumpable) binary. Also run
# as an unprivileged user (tests/run.sh), where corral may not read an
# execute-only binary's memory and must fall back to /proc.
. "$(dirname "$0")/lib.sh"
need_corral
need_fixture argv_self
SELF=$FIX/argv_self
REAL=$(readlink -f "$SELF")

# check LABEL [nopath-ok]: the last run's journal against its stdout.
check() {
	local label=$1 nopath=${2:-}
	expect_rc 0 "$label"
	j_valid "$T/j" || return
	python3 - "$T/j" "$OUTF" "$nopath" <<'PY' || fail "$label: the journal's exec lines are not what the processes got"
import json, sys
jpath, wpath, nopath = sys.argv[1], sys.argv[2], sys.argv[3]
execs = {}
for line in open(jpath, 'rb'):
    o = json.loads(line)
    if o['event'] == 'exec':
        execs.setdefault(o['pid'], []).append(o)
seen = {}
bad = 0
for line in open(wpath):
    f = line.split(' ')
    pid, exe = int(f[0]), f[1].strip()
    argv = [bytes.fromhex(a.strip()[1:]) for a in f[2:]]
    k = seen.get(pid, 0)
    seen[pid] = k + 1
    got = execs.get(pid, [])
    if k >= len(got):
        print('pid %d: exec %d of it is not in the journal' % (pid, k + 1))
        bad += 1
        continue
    o = got[k]
    jargv = [a.encode('utf-8', 'surrogateescape') for a in o.get('argv', [None])]
    if jargv != argv:
        print('pid %d exec %d: journal argv %r\n  the process got %r' %
              (pid, k + 1, jargv[:8], argv[:8]))
        bad += 1
    if exe != '-':
        want = bytes.fromhex(exe).decode('utf-8', 'surrogateescape')
        if 'path' not in o and not nopath:
            print('pid %d exec %d: no path (the process says %s)' % (pid, k + 1, want))
            bad += 1
        elif 'path' in o and o['path'] != want:
            print('pid %d exec %d: path %s, the process says %s' % (pid, k + 1, o['path'], want))
            bad += 1
n = sum(len(v) for v in execs.values())
if n != sum(seen.values()):
    print('%d exec lines, %d witnessed' % (n, sum(seen.values())))
    bad += 1
if not seen:
    print('no witness line')
    bad += 1
sys.exit(1 if bad else 0)
PY
}

RUN_LABEL="odd bytes"
run -- "$CORRAL" run -q -j "$T/j" -- "$SELF" --exec "$SELF" "" "a b" \
	$'\x01\x02\x7f\xff\xfe' '"\' $'line\nbreak\ttab' "é ü" "" -- '-x' ""
check "odd bytes, empty strings, exec of itself"

RUN_LABEL="no environment"
run -- "$CORRAL" run -q -j "$T/j" -- "$SELF" --exec-env0 "$SELF" one "" three
check "an exec with an empty environment"

RUN_LABEL="long strings"
run -- "$CORRAL" run -q -j "$T/j" -- "$SELF" --exec-big 3 3000
check "9 KB of argv strings"

RUN_LABEL="many pointers"
run -- "$CORRAL" run -q -j "$T/j" -- "$SELF" --exec-big 1500 3
check "1500 arguments: pointers beyond the first read"
run -- "$CORRAL" run -q -j "$T/j" -- "$SELF" --exec-big 1500 3 env0
check "1500 arguments, no environment"

RUN_LABEL="huge"
run -- "$CORRAL" run -q -j "$T/j" -- "$SELF" --exec-big 16 100000 env0
check "a 1.5 MiB argv, no environment"
run -- "$CORRAL" run -q -j "$T/j" -- "$SELF" --exec-big 16 100000
check "a 1.5 MiB argv"

RUN_LABEL="no argv"
run -- "$CORRAL" run -q -j "$T/j" -- "$SELF" --exec-noargv "$SELF"
check "execve with argv = {NULL}"

RUN_LABEL="symlink"
ln -s "$SELF" "$T/link"
run -- "$CORRAL" run -q -j "$T/j" -- "$SELF" --exec "$T/link" "$T/link" arg
check "exec of a symlink"
j_expect "$T/j" ".event == \"exec\" and .path == \"$REAL\"" 2 "the path is the executable, the link resolved"

RUN_LABEL="relative"
run -- env -C "$T" "$CORRAL" run -q -j "$T/j" -- ./link --exec ./link ./link rel
check "exec by a relative path"

RUN_LABEL="script"
printf '#!%s -s\n' "$SELF" >"$T/script"
chmod 755 "$T/script"
run -- "$CORRAL" run -q -j "$T/j" -- "$SELF" --exec "$T/script" name a ""
check "a #! script: the interpreter's argv as the kernel made it"
j_expect "$T/j" ".event == \"exec\" and .argv == [\"$SELF\", \"-s\", \"$T/script\", \"a\", \"\"]" 1 "the script's exec line"

RUN_LABEL="execute-only"
cp "$SELF" "$T/xonly"
chmod 0111 "$T/xonly"
run -- "$CORRAL" run -q -j "$T/j" -- "$SELF" --exec "$T/xonly" xonly "" z
# /proc/PID/exe of a non-dumpable task is not readable by an unprivileged
# corral: the path is left out then, never wrong.
check "an execute-only (non-dumpable) binary" nopath-ok

RUN_LABEL="32-bit"
cat >"$T/m32.c" <<'EOF'
/* Writes its argv, NUL-terminated each, on stdout, from its own stack. */
static int sys3(int n, int a, int b, int c)
{
	int r;
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(n), "b"(a), "c"(b), "d"(c) : "memory");
	return r;
}
__attribute__((used)) void cmain(int *sp)
{
	int argc = sp[0];
	char **argv = (char **)(sp + 1);
	for (int i = 0; i < argc; i++) {
		int n = 0;
		while (argv[i][n])
			n++;
		sys3(4, 1, (int)argv[i], n + 1);
	}
	sys3(1, 0, 0, 0);
}
__asm__(".globl _start\n_start:\n\tmovl %esp, %eax\n\tpushl %eax\n\tcall cmain\n\thlt\n");
EOF
# Two probes, each running the thing: a 32-bit toolchain (gcc -m32 builds
# the program) and the kernel's 32-bit emulation (the program runs: where
# it is off, its exec fails with ENOEXEC). M32 is set only when both work.
# TEST_PRETEND_NO_IA32=1 (tests only) takes the second as failed after it
# ran, to exercise the skip path where the kernel has it.
M32=
if ! gcc -m32 -O1 -nostdlib -static -ffreestanding -fno-pic -no-pie -o "$T/m32" "$T/m32.c" 2>"$T/m32.err"; then
	skip_part "no 32-bit toolchain (gcc -m32: $(head -n 1 "$T/m32.err" | cut -c1-100))"
elif ! "$T/m32" probe >/dev/null 2>"$T/m32.err"; then
	skip_part "a 32-bit program does not run: no 32-bit emulation on this kernel ($(tail -n 1 "$T/m32.err" | sed "s/.*: \([^:]*: [^:]*\)$/\1/"))"
elif [ "${TEST_PRETEND_NO_IA32:-}" = 1 ]; then
	skip_part "TEST_PRETEND_NO_IA32=1 (the 32-bit program ran)"
else
	M32=$T/m32
fi
if [ -n "$M32" ]; then
	run -- "$CORRAL" run -q -j "$T/j" -- "$T/m32" "" $'\xff' "b c"
	expect_rc 0 "32-bit tracee"
	if j_valid "$T/j"; then
		python3 - "$T/j" "$OUTF" "$T/m32" <<'PY' || fail "32-bit tracee: the journal's argv is not what it got"
import json, sys
ex = [json.loads(l) for l in open(sys.argv[1], 'rb')]
ex = [o for o in ex if o['event'] == 'exec']
got = open(sys.argv[2], 'rb').read().split(b'\0')[:-1]
assert len(ex) == 1, ex
j = [a.encode('utf-8', 'surrogateescape') for a in ex[0]['argv']]
assert j == got, (j, got)
assert ex[0]['path'] == sys.argv[3], ex[0]
PY
	fi
fi

# White box, where strace is: the 64-bit execs were read from the stack
# (no /proc/PID/cmdline), the 32-bit one from /proc. Without this the
# checks above would pass as well if the stack reader always gave up.
RUN_LABEL="which reader"
# (As root only: an unprivileged strace cannot read a non-dumpable corral's
# memory to show the paths.)
if ! strace -qq -o /dev/null true 2>/dev/null; then
	skip_part "strace is missing or cannot trace here: which reader ran is not checked"
elif [ "$(id -u)" != 0 ]; then
	skip_part "not root: strace cannot read a non-dumpable corral's memory (checked in the run as root)"
else
	# Without a 32-bit program: two 64-bit execs, both from the stack.
	second=("$SELF" again x)
	[ -n "$M32" ] && second=("$M32" m32 x)
	# (LeakSanitizer cannot run under ptrace: make asan.)
	run -- env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -qq -o "$T/st" -e trace=openat,process_vm_readv \
		"$CORRAL" run -q -j "$T/j" -- "$SELF" --exec "${second[@]}"
	expect_rc 0 "under strace"
	n=$(grep -c 'process_vm_readv(' "$T/st")
	c=$(grep -c '/cmdline"' "$T/st")
	if [ "${CORRAL_TESTKERNEL_SYSCALL_INFO:-}" = none ]; then
		# corral-testkernel pretends to a kernel without
		# PTRACE_GET_SYSCALL_INFO (docs/testing.md): no stack pointer,
		# so every exec is read from /proc, and the checks above ran
		# through that path
		expect_eq "$n" 0 "process_vm_readv calls without PTRACE_GET_SYSCALL_INFO"
		expect_eq "$c" 2 "/proc/PID/cmdline reads without PTRACE_GET_SYSCALL_INFO (both execs)"
	elif [ -n "$M32" ]; then
		[ "$n" -ge 1 ] || fail "the 64-bit exec's argv was not read from its stack"
		expect_eq "$c" 1 "/proc/PID/cmdline reads (the 32-bit exec)"
	else
		[ "$n" -ge 1 ] || fail "the 64-bit exec's argv was not read from its stack"
		expect_eq "$c" 0 "/proc/PID/cmdline reads (64-bit execs only)"
		skip_part "no 32-bit program (above): the /proc/PID/cmdline fallback for a 32-bit exec is not checked"
	fi
fi

done_test
