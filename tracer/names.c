/*
 * names.c - names for signals, events and reasons, used by the journal, the
 * live tree, the escape audit, the report and the CLI: a signal is named
 * here and nowhere else. sigabbrev_np() needs glibc 2.32; Debian 12 has
 * 2.36.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "corral.h"
#include "names.h"

const char *signal_name(int sig, char buf[16])
{
	const char *n = sigabbrev_np(sig);
	size_t l = n ? strlen(n) : 0;
	if (n && l < 16 - 3) {
		/* Not snprintf: a journal line per signal (SIGCHLD). */
		memcpy(buf, "SIG", 3);
		memcpy(buf + 3, n, l + 1);
		return buf;
	}
	if (sig >= SIGRTMIN && sig <= SIGRTMAX) {
		snprintf(buf, 16, "SIGRTMIN+%d", sig - SIGRTMIN);
		return buf;
	}
	snprintf(buf, 16, "SIG%d", sig);
	return buf;
}

/* For the CLI and other callers of corral.h: the same names. */
const char *corral_signal_name(int sig, char buf[16])
{
	return signal_name(sig, buf);
}

static const char *const event_names[CORRAL_EV__COUNT] = {
	[CORRAL_EV_START] = "start",	   [CORRAL_EV_FORK] = "fork",
	[CORRAL_EV_VFORK] = "vfork",	   [CORRAL_EV_CLONE] = "clone",
	[CORRAL_EV_THREAD] = "thread",	   [CORRAL_EV_EXEC] = "exec",
	[CORRAL_EV_SIGNAL] = "signal",	   [CORRAL_EV_STOP] = "stop",
	[CORRAL_EV_CONT] = "cont",	   [CORRAL_EV_EXIT] = "exit",
	[CORRAL_EV_LEFT] = "left",	   [CORRAL_EV_ENDING] = "ending",
	[CORRAL_EV_DENIED] = "denied",	   [CORRAL_EV_ESCAPE] = "escape",
	[CORRAL_EV_STACK] = "stack",	   [CORRAL_EV_SNAPSHOT] = "snapshot",
	[CORRAL_EV_END] = "end",	   [CORRAL_EV_DYING] = "dying",
	[CORRAL_EV_CORE] = "core",
	[CORRAL_EV_FUSE_ABORT] = "fuse_abort",
	[CORRAL_EV_SURVIVOR] = "survivor",
	[CORRAL_EV_PTRACE] = "ptrace",
};

const char *corral_event_name(enum corral_event_type t)
{
	return (unsigned)t < CORRAL_EV__COUNT ? event_names[t] : "?";
}

const char *corral_reason_name(enum corral_reason r)
{
	switch (r) {
	case CORRAL_REASON_NONE:
		return "none";
	case CORRAL_REASON_EXITED:
		return "exited";
	case CORRAL_REASON_TIMEOUT:
		return "timeout";
	case CORRAL_REASON_SIGNAL:
		return "signal";
	case CORRAL_REASON_PARENT:
		return "parent";
	case CORRAL_REASON_MAXPROCS:
		return "max-procs";
	case CORRAL_REASON_ESCAPE:
		return "escape";
	case CORRAL_REASON_REQUEST:
		return "request";
	case CORRAL_REASON_JOURNAL:
		return "journal";
	}
	return "?";
}
