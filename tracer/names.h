/* names.h - printable names for signals, events and reasons. */
#ifndef CORRAL_NAMES_H
#define CORRAL_NAMES_H

/* "SIGTERM", "SIGRTMIN+3", "SIG32" (a number without a name), written
 * into buf, which is returned. corral_signal_name() is the same for
 * callers of corral.h. */
const char *signal_name(int sig, char buf[16]);

#endif
