/* names.h - printable names for signals, events and reasons. */
#ifndef CORRAL_NAMES_H
#define CORRAL_NAMES_H

/* "SIGTERM", "SIGRTMIN+3"; buf is used for unnamed numbers. */
const char *signal_name(int sig, char buf[16]);

#endif
