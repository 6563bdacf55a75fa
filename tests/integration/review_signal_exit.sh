#!/usr/bin/env bash
# A member that signals corral is recorded and not obeyed
# (docs/threat-model.md "Job control and the live view"). With
# --boundary seccomp and --escape off a member still has a path to signal
# corral (pidfd_send_signal through /proc/<corral>, "Left open"). A member
# that sends and exits at once must not be taken for an outsider because
# its exit was handled before its signal was read (before: corral obeyed
# the SIGTERM, ended the tree with reason "signal" and died of it).
# 300 members each send SIGTERM and exit; the run must end normally.
. "$(dirname "$0")/lib.sh"
need_corral
command -v python3 >/dev/null || skip_test "python3 not installed"

cat >"$T/m.py" <<'PY'
import os, signal, sys
fd = os.open("/proc/%d" % os.getppid(), os.O_RDONLY | os.O_DIRECTORY)
sent = 0
for i in range(300):
    p = os.fork()
    if p == 0:
        try:
            signal.pidfd_send_signal(fd, signal.SIGTERM)
        except OSError:
            os._exit(1)
        os._exit(0)
    _, st = os.waitpid(p, 0)
    sent += st == 0
print("SENT %d" % sent, flush=True)
PY

RUN_LABEL="members signal corral and exit at once"
run -- "$CORRAL" run -q --boundary seccomp --escape off -j "$T/j" -- python3 "$T/m.py"
expect_rc 0 "corral (the command exits 0; no signal of a member is obeyed)"
expect_grep '^SENT 300$' "$T/out.$RUN" "every member's signal was sent"
expect_eq "$(j_end "$T/j" reason)" none "the end's reason"
[ "$(j_count "$T/j" '.event == "denied" and ((.detail // "") | test("^signal 15 to corral"))')" -ge 1 ] ||
	fail "no member's signal recorded as denied"
[ "$FAILS" = 0 ] || { show_run; show_journal "$T/j"; }

done_test
