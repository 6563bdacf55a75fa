/* names.h - printable names for signals, events and reasons. */
#ifndef CORRAL_NAMES_H
#define CORRAL_NAMES_H

#include "corral.h"

/* "SIGTERM", "SIGRTMIN+3", "SIG32" (a number without a name), written
 * into buf, which is returned. corral_signal_name() is the same for
 * callers of corral.h. */
const char *signal_name(int sig, char buf[16]);

/*
 * How many event types this library knows (events.def). Private: a
 * caller built with another header may see more or fewer (docs/api.md).
 */
enum {
#define EV(id, ...) EV_INDEX_##id,
#include "events.def"
#undef EV
	CORRAL_EV__COUNT
};

/* The event type whose journal name is name[0..len), or -1. */
int event_by_name(const char *name, size_t len);

/* The keys a line of type t may carry besides event, t, n and h, as
 * events.def writes them ("key:type ..."); NULL for an unknown type. */
const char *event_keys(int t);

/* The word of an escape verdict ("log", "deny"...) and of an emulated
 * ptrace's action ("attach", "tracer-exit"...): the event's text fields
 * and the journal's. NULL for NONE or a value this library does not know. */
const char *verdict_name(enum corral_verdict v);
const char *ptrace_action_name(enum corral_ptrace_action a);

#endif
