/*
 * corral/common.h - what every part of corral's API shares: the version,
 * the exit codes, the names of events, reasons and signals, and how corral
 * quotes text and opens files. Both libraries export it: libcorral (the
 * supervisor, include <corral.h>) and libcorral-journal (reading and
 * verifying journals, <corral/journal.h> and <corral/report.h>); see
 * docs/api.md, "Headers".
 *
 * Structs the caller allocates and a library reads or fills (config,
 * result, probe, journal check, report options) have one pattern: `size_t
 * size` is their first field, and STRUCT_init(&s), an inline next to the
 * struct, zeroes it and sets size = sizeof(s) (and the defaults, for the
 * config); the library reads or writes only s.size bytes of it (docs/api.md,
 * "The ABI scheme").
 *
 * Every function declared in corral's headers is part of the ABI: the
 * libraries are built with -fvisibility=hidden and each header wraps its
 * declarations in a visibility pragma, so a function added to a header is
 * exported without further ado (the version script is generated from it).
 */
#ifndef CORRAL_PUBLIC_COMMON_H
#define CORRAL_PUBLIC_COMMON_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/* The Makefile takes the library's version (and SONAME) from here. */
#define CORRAL_VERSION "0.2.0"
#define CORRAL_VERSION_MAJOR 0
#define CORRAL_VERSION_MINOR 2
#define CORRAL_VERSION_PATCH 0
/* Version of the journal schema (docs/journal.md). */
#define CORRAL_JOURNAL_SCHEMA 6

/* Exit codes of the CLI, also reported in corral_result.exit_code. */
enum {
	CORRAL_EXIT_DYING = 121,    /* members survived: still dying at
				       --kill-wait, or alive after the end */
	CORRAL_EXIT_MAXPROCS = 122, /* --max-procs exceeded, tree ended */
	CORRAL_EXIT_ESCAPE = 123,   /* --escape=kill fired, tree ended */
	CORRAL_EXIT_TIMEOUT = 124,  /* --timeout expired, tree ended */
	CORRAL_EXIT_INTERNAL = 125, /* corral's own failure or bad usage */
	CORRAL_EXIT_NOEXEC = 126,   /* command found but not executable */
	CORRAL_EXIT_NOTFOUND = 127, /* command not found */
};

/*
 * Event types: a journal line's "event" is corral_event_name(type). Values
 * are only added, at the end (docs/api.md): a callback ignores a type it
 * does not know. The library's list is tracer/base/events.def.
 */
enum corral_event_type {
	CORRAL_EV_START,
	CORRAL_EV_FORK,
	CORRAL_EV_VFORK,
	CORRAL_EV_CLONE,  /* a new process made with clone() */
	CORRAL_EV_THREAD, /* a new thread (CLONE_THREAD) */
	CORRAL_EV_EXEC,
	CORRAL_EV_SIGNAL, /* a signal delivered to a member */
	CORRAL_EV_STOP,	  /* a member entered a group-stop (SIGSTOP...) */
	CORRAL_EV_CONT,	  /* a group-stopped member was continued */
	CORRAL_EV_EXIT,
	CORRAL_EV_LEFT,	  /* a member still alive after the command exited */
	CORRAL_EV_ENDING, /* the supervisor starts ending the tree */
	CORRAL_EV_DENIED, /* a containment rule refused a call */
	CORRAL_EV_ESCAPE, /* an escape-relevant call (audit) */
	CORRAL_EV_STACK,
	CORRAL_EV_SNAPSHOT,
	CORRAL_EV_END,
	CORRAL_EV_DYING, /* killed members not gone yet: who, how long */
	CORRAL_EV_CORE,	 /* a member's core file was written (--core) */
	CORRAL_EV_FUSE_ABORT, /* kill-all aborted a FUSE connection members
				 serve (their tasks could not die) */
	CORRAL_EV_SURVIVOR,   /* a task of the tree still there at the end */
	CORRAL_EV_PTRACE, /* the emulated ptrace: attach, detach, refused... */
};

/* Why the tree is being ended. */
enum corral_reason {
	CORRAL_REASON_NONE,
	CORRAL_REASON_EXITED,	/* command exited; members left behind */
	CORRAL_REASON_TIMEOUT,	/* --timeout */
	CORRAL_REASON_SIGNAL,	/* corral got SIGINT/SIGTERM/SIGHUP */
	CORRAL_REASON_PARENT,	/* corral's parent died */
	CORRAL_REASON_MAXPROCS, /* --max-procs */
	CORRAL_REASON_ESCAPE,	/* --escape=kill */
	CORRAL_REASON_REQUEST,	/* library caller asked */
	CORRAL_REASON_JOURNAL,	/* journal_strict: a line was lost (exit 125) */
};

/* The library's version at run time ("0.2.0"), CORRAL_VERSION at build time. */
const char *corral_version(void);

const char *corral_reason_name(enum corral_reason r);
const char *corral_event_name(enum corral_event_type t);
/*
 * A signal's name as the journal writes it: "SIGTERM", "SIGRTMIN+3", or
 * "SIG32" for a number without one. Written into buf, which is returned.
 */
const char *corral_signal_name(int sig, char buf[16]);

/* An argument quoted for a shell, control characters escaped (malloc'd). */
char *corral_quote(const char *s);
/* Text with control characters and non-UTF-8 bytes escaped (malloc'd). */
char *corral_escape(const char *s);

/*
 * Open a file the way corral opens every file it writes and its key file
 * (docs/journal.md, "Where lines go"): no symbolic link followed, in the
 * directories of the path or as the file itself; WRITE accepts a regular
 * file (truncated, only when the effective uid owns it and it has one
 * link; a new one is made with O_EXCL, mode 0666 less the umask) or a FIFO
 * (opened O_NONBLOCK: -ENXIO without a reader); READ a regular file only.
 * WRITE with "/dev/stdout", "/dev/stderr", "/dev/fd/N" or
 * "/proc/self/fd/N" duplicates that descriptor, as given. Returns a
 * descriptor (O_CLOEXEC) or -errno with a message in err ("output PATH:
 * why"; for READ " PATH: why").
 */
enum { CORRAL_OPEN_READ = 1, CORRAL_OPEN_WRITE = 2 };
int corral_open_file(const char *path, int how, char *err, size_t errlen);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
