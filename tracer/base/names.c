/*
 * names.c - names for signals, events and reasons, used by the journal, the
 * live tree, the escape audit, the report and the CLI: a signal is named
 * here and nowhere else. sigabbrev_np() needs glibc 2.32; Debian 12 has
 * 2.36.
 */
#include <signal.h>
#include <stdbool.h>
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

/*
 * The event vocabulary (events.def). The compiler holds
 * include/corral/common.h's enum to it both ways: each entry's CORRAL_EV_ value
 * is its place in the list (the asserts), and event_known()'s switch names
 * every value of the enum, so a value without an entry does not build
 * (-Wswitch).
 */
#define EV(id, ...)                                                            \
	_Static_assert((int)CORRAL_EV_##id == (int)EV_INDEX_##id,              \
		       "include/corral/common.h and tracer/base/events.def "   \
		       "disagree on CORRAL_EV_" #id);
#include "events.def"
#undef EV

static bool event_known(enum corral_event_type t)
{
	switch (t) {
#define EV(id, ...) case CORRAL_EV_##id:
#include "events.def"
#undef EV
		return true;
	}
	return false;
}

static const struct {
	const char *name, *keys;
} events[CORRAL_EV__COUNT] = {
#define EV(id, name, mark, keys, doc) [CORRAL_EV_##id] = {name, keys},
#include "events.def"
#undef EV
};

const char *corral_event_name(enum corral_event_type t)
{
	return event_known(t) ? events[t].name : "?";
}

int event_by_name(const char *name, size_t len)
{
	for (int t = 0; t < CORRAL_EV__COUNT; t++)
		if (strlen(events[t].name) == len &&
		    !memcmp(events[t].name, name, len))
			return t;
	return -1;
}

const char *event_keys(int t)
{
	return t >= 0 && t < CORRAL_EV__COUNT ? events[t].keys : NULL;
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

/*
 * The words of the typed payloads (the event's verdict and action, what
 * the journal writes): each enum value has its word here and nowhere else
 * in the library; the switches name every value (-Wswitch). NULL for NONE
 * and for a value this library does not know.
 */
const char *verdict_name(enum corral_verdict v)
{
	switch (v) {
	case CORRAL_VERDICT_NONE:
		return NULL;
	case CORRAL_VERDICT_LOG:
		return "log";
	case CORRAL_VERDICT_DENY:
		return "deny";
	case CORRAL_VERDICT_KILL:
		return "kill";
	case CORRAL_VERDICT_SETUP:
		return "setup";
	case CORRAL_VERDICT_ALLOW:
		return "allow";
	}
	return NULL;
}

const char *ptrace_action_name(enum corral_ptrace_action a)
{
	switch (a) {
	case CORRAL_PTRACE_NONE:
		return NULL;
	case CORRAL_PTRACE_ATTACH:
		return "attach";
	case CORRAL_PTRACE_SEIZE:
		return "seize";
	case CORRAL_PTRACE_TRACEME:
		return "traceme";
	case CORRAL_PTRACE_DETACH:
		return "detach";
	case CORRAL_PTRACE_TRACER_EXIT:
		return "tracer-exit";
	case CORRAL_PTRACE_EXITKILL:
		return "exitkill";
	case CORRAL_PTRACE_REFUSED:
		return "refused";
	case CORRAL_PTRACE_UNSUPPORTED:
		return "unsupported";
	case CORRAL_PTRACE_REVOKED:
		return "revoked";
	}
	return NULL;
}
