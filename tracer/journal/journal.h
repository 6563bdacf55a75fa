/*
 * journal.h - the journal's parts inside the engine (docs/journal.md):
 *
 *   journal.c  events to lines, the start/end keys, the end-of-run check
 *   jsink.c    where lines go: a private non-blocking descriptor, a bounded
 *              queue, whole lines only, loss counted and said once
 *   chain.c    the keyed digest chain ("n" and "h" on every line) and the
 *              reader behind corral_journal_verify()
 *   verify.c   that reader's public, size-versioned entry points
 */
#ifndef CORRAL_JOURNAL_H
#define CORRAL_JOURNAL_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "corral.h"
#include "json.h"

/* Default bound of the queue of lines a slow sink has not taken yet. */
#define JOURNAL_QUEUE_DEFAULT (64u << 20)
/* Hex digits of a line's digest (HMAC-SHA256). */
#define CHAIN_HEX 64

/* chain.c: a running SHA-256 of the bytes written (the end-of-run check). */
struct jsum;
struct jsum *jsum_new(void);
void jsum_update(struct jsum *s, const void *p, size_t n);
void jsum_free(struct jsum *s);

enum jsink_kind {
	JS_FILE,   /* regular file: writes never wait for a reader */
	JS_STREAM, /* pipe, FIFO, tty, character device: may say EAGAIN */
	JS_SOCKET, /* written with send(MSG_DONTWAIT), flags untouched */
};

struct jsink {
	int fd; /* private descriptor (O_CLOEXEC), -1 without a journal */
	enum jsink_kind kind;
	char name[128]; /* for messages */
	/* The queue: bytes [head, len) of q are not written yet. */
	char *q;
	size_t head, len, cap, max;
	bool partial;  /* the first queued line is partly written (stream) */
	bool wait_out; /* the last write said EAGAIN: poll for POLLOUT */
	bool dead;     /* failed for good (reader gone, I/O error) */
	bool torn;     /* a stream got part of a line that was then dropped */
	bool said;     /* the first error is on stderr */
	bool loss;     /* a line failed or was lost since journal_take_loss() */
	int last_err;
	unsigned long lost, errors, written;
	char last_h[CHAIN_HEX + 1]; /* digest of the last line written */
	/* Regular files: where our lines begin, and what the path was. */
	off_t start;
	dev_t dev;
	ino_t ino;
	const char *path; /* NULL for a descriptor given as is */
	/* The digest of the line before start, when there is one: the start
	 * line names it ("after") and its digest chains to it. */
	char after[CHAIN_HEX + 1];
	struct jsum *sum; /* regular files: what went out, hashed */
	unsigned long long wbytes;
	/* CLOCK_MONOTONIC when the queue, then empty, got a later line;
	 * 0: nothing waits that may wait (jsink_later_due). */
	double later_at;
	/* Where its one complaint goes (corral_config.log; log.c). */
	corral_log_fn log;
	void *log_arg;
};

/*
 * How long a later line (an exit: it resumes nobody) may wait for the
 * next line to ride with, when the loop has nothing else to do: one
 * write fewer per process on a tree that forks and reaps in turn, and a
 * corral killed meanwhile loses at most this much of such lines.
 */
#define JSINK_LATER 0.010

/*
 * Open the journal cfg names. A path is opened by safe_open() (no link
 * followed, a regular file or FIFO) and must not lie in forbid (the
 * sandbox's writable places); a descriptor is taken as given.
 */
struct safe_forbid;
int jsink_open(struct jsink *s, const struct corral_config *cfg,
	       const struct safe_forbid *forbid, size_t nforbid, char *err,
	       size_t errlen);
void jsink_close(struct jsink *s);
/*
 * Queue one whole line (ending in '\n') and, unless later, write what the
 * sink takes. A later line waits for the next line written now, or until
 * it is due (JSINK_LATER after the first of them; the loop's sleep ends
 * then: jsink_later_due), or for jsink_flush().
 */
void jsink_put(struct jsink *s, const char *line, size_t n, bool later);
/* Write what the sink takes now, without waiting. */
void jsink_flush(struct jsink *s);
/* Seconds until later lines must be written (0: now); -1: none waits. */
double jsink_later_due(const struct jsink *s);
/* Write what waits (later lines once they are due); then a pollfd when
 * the loop should wake up to write more: 0 or 1. */
int jsink_pollfd(struct jsink *s, struct pollfd *p);
/*
 * The end: write what is queued, waiting up to bound seconds for a slow
 * reader (a signal in sigfd other than SIGCHLD cuts it short); what is
 * left is dropped and counted as lost.
 */
void jsink_drain(struct jsink *s, double bound, int sigfd);

struct hmac;

struct chain {
	struct hmac *mac; /* keyed HMAC-SHA256 (chain.c) */
	unsigned char prev[32];
	unsigned long n; /* the next line's sequence number */
	bool run_key;	 /* a per-run random key (disclosed in the end line) */
	unsigned char *key;
	size_t keylen;
};

int chain_init(struct chain *ch, const char *key_path, char *err,
	       size_t errlen);
void chain_free(struct chain *ch);
/*
 * Close a line: b holds "{...keys" without the closing brace; append
 * ,"n":N,"h":"<hex>"}\n, where hex = HMAC(key, prev || b-before-the-h).
 */
void chain_seal(struct chain *ch, struct sbuf *b);
/* Continue the chain after the line whose digest is hex (n lines). */
void chain_rewind(struct chain *ch, const char *hex, unsigned long n);

/*
 * The digest of the sealed line that ends at byte start of the file fd
 * writes (read through /proc/self/fd), into out; -1 (out empty) when the
 * bytes there are not the end of a sealed line or cannot be read.
 */
int chain_after(int fd, off_t start, char out[CHAIN_HEX + 1]);

/* corral_journal_check_buf() without the size handling (the fuzz target). */
int journal_verify_core(const char *buf, size_t len,
			struct corral_journal_check *c);

/*
 * The end-of-run check of a regular file: the bytes from s->start are the
 * lines this run wrote, no more, no fewer, unchanged. 1 yes, 0 no (why in
 * msg), -1 cannot tell (not a regular file).
 */
int chain_check_own(const struct chain *ch, const struct jsink *s, char *msg,
		    size_t msglen);

#endif
