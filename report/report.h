/*
 * report.h - the report module's own pieces (not exported): the journal
 * reader (jread.c), the run model built from it (model.c) and the writers
 * (summary.c, tree.c, perfetto.c, html.c, out.c).
 *
 * The report reads journals only: it never looks at the engine's
 * structures, so it works on a journal from another machine or from an
 * older corral.
 */
#ifndef CORRAL_REPORT_INTERNAL_H
#define CORRAL_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "corral.h"

/* ------------------------------------------------------------ reader */

/*
 * A line is never read into memory beyond this: a longer one is bad input
 * (the biggest line corral writes is a snapshot of a large tree, a few MB).
 */
#define RPT_LINE_MAX (64u << 20)
/* Deeper nesting than this is not a corral journal. */
#define RPT_DEPTH_MAX 32

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

/*
 * One parsed line: a small tree of nodes in arrays that are reused from
 * line to line (no allocation per node). Strings hold the original bytes:
 * \udcXX escapes are turned back into the byte XX.
 */
struct jnode {
	uint8_t type;
	bool b;
	uint32_t key,
		klen;	  /* offset/length in strs: member name in an object */
	uint32_t s, slen; /* string value, or a number's text */
	double num;
	int32_t first, last, next; /* children (array/object), sibling */
};

struct jdoc {
	struct jnode *n;
	size_t nn, ncap;
	char *strs;
	size_t slen, scap;
	int32_t stack[RPT_DEPTH_MAX + 2];
	int depth;
	bool too_deep, oom;
};

/* Node i of d, or NULL when i < 0. */
static inline const struct jnode *jd_node(const struct jdoc *d, int32_t i)
{
	return i < 0 ? NULL : &d->n[i];
}
static inline const char *jd_str(const struct jdoc *d, const struct jnode *n)
{
	return d->strs + n->s;
}
/* Member `key` of object node o (NULL if missing or o is not an object). */
const struct jnode *jd_get(const struct jdoc *d, const struct jnode *o,
			   const char *key);
/* Typed getters on object o; false when missing or of another type. */
bool jd_num(const struct jdoc *d, const struct jnode *o, const char *key,
	    double *v);
const char *jd_string(const struct jdoc *d, const struct jnode *o,
		      const char *key, size_t *len);

/* Reads lines from a file descriptor or a buffer, one at a time. */
struct jreader {
	int fd;			/* -1: reading from buf only */
	char *buf;		/* owned when fd >= 0 */
	size_t cap, start, end; /* unread bytes are buf[start, end) */
	bool eof;
	unsigned long line; /* number of the last line returned */
	const char *lp;	    /* its bytes (without the newline) */
	size_t llen;
	size_t scanned; /* bytes after start known to have no \n */
	void *yajl;
	struct jdoc doc;
	char err[256];
};

int jr_open_fd(struct jreader *r, int fd);
int jr_open_mem(struct jreader *r, const char *buf, size_t len);
void jr_close(struct jreader *r);

enum jr_status {
	JR_EOF = 0,
	JR_OK = 1,	 /* r->doc holds the line's value */
	JR_BLANK = 2,	 /* an empty or whitespace-only line */
	JR_BAD = -1,	 /* not JSON: r->err says why */
	JR_TOOLONG = -2, /* longer than RPT_LINE_MAX */
	JR_CUT = -3,	 /* the last line, without newline, not whole JSON */
	JR_IOERR = -4,
	JR_NOMEM = -5,
};

/* Read and parse the next line. */
enum jr_status jr_next(struct jreader *r);

/* --------------------------------------------------- untrusted bytes */

/*
 * A string read from a journal. Whoever wrote the file chose its bytes: a
 * member names its processes, its frames and its calls, and a member may
 * edit the file during the run (anyone may afterwards). So the model keeps
 * every journal string as a ustr, and only esc.c reads its bytes: a
 * writer hands it to the escaper of its output kind (terminal text,
 * Markdown, JSON; HTML is JSON in a <script>). The fields end in '_' so
 * that a reader elsewhere stands out (report_escape.sh greps for one);
 * no writer has a way to print a ustr raw, so a new one cannot forget.
 *
 * p_ == NULL: absent (the key was not in the line). An owned ustr (a
 * model field) is NUL-terminated and freed with us_free(); a view (us_sub,
 * us_lit, rpt_proc_name...) borrows its bytes.
 */
struct ustr {
	char *p_;
	size_t n_;
};

/* An owned copy of n bytes, or of a node's string; absent on ENOMEM. */
struct ustr us_dup(const char *s, size_t n);
/* Adopt malloc'ed p, with p[n] == 0 (NULL: absent). */
struct ustr us_take(char *p, size_t n);
void us_free(struct ustr *u);
/* u escaped for a terminal, malloc'ed (NULL on ENOMEM). */
char *us_shown(struct ustr u);
/* A view of a C string of our own (NULL: absent). */
struct ustr us_lit(const char *s);
static inline bool us_ok(struct ustr u)
{
	return u.p_ != NULL;
}
size_t us_len(struct ustr u);
/* The bytes before the first NUL (argv[0] of a NUL-separated argv). */
size_t us_strlen(struct ustr u);
/* u, or the view of our own default d when u is absent. */
struct ustr us_or(struct ustr u, const char *d);
/* Bytes [off, off+n) of u, clamped. */
struct ustr us_sub(struct ustr u, size_t off, size_t n);
/* Index of the first byte of u at or after from that is in set, or the
 * length (as strcspn). */
size_t us_cspn(struct ustr u, size_t from, const char *set);
/* Does u equal / start with the text of our own s? */
bool us_eq(struct ustr u, const char *s);
bool us_prefix(struct ustr u, const char *s);
/* What follows the last '/' (u when none, or when nothing follows). */
struct ustr us_base(struct ustr u);
/*
 * The next '\n'-separated line of u from *pos (advanced past it); false at
 * the end.
 */
bool us_line(struct ustr u, size_t *pos, struct ustr *line);
/*
 * The bytes of u for a reader that only compares and hashes them, never
 * prints them (corral diff's matching keys, diff_norm.c): *n set; NULL
 * when absent. What is printed still goes through the escapers below.
 */
const char *us_key_bytes(struct ustr u, size_t *n);
/* A note's text: our words with journal strings in them (rpt_note). */
struct ustr us_printf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* The output kinds, each with its escaper. */
enum esc_kind {
	ESC_TEXT,     /* a terminal: control bytes, C1, bidi, non-UTF-8
			 shown as \xHH, \n, \e (quote.c) */
	ESC_MD,	      /* Markdown: a code span, fenced past any backquote */
	ESC_MD_TABLE, /* the same in a table cell (no '|' at all) */
	ESC_JSON, /* a JSON string literal, non-UTF-8 as \udcXX, <>& escaped */
	ESC_JSON_ASCII, /* the same with non-UTF-8 as the text \xNN */
};
/* u for output kind k (absent: "?" as text/Markdown, null as JSON). */
void esc_put(FILE *f, struct ustr u, enum esc_kind k);
/* u as a shell reads it back ('quoted' or $'\e...'), for a terminal. */
void esc_quoted(FILE *f, struct ustr u);
/*
 * An enumerated field (a reason, a verdict, a signal name, a stack's why):
 * a value of the known set (NULL-terminated; set NULL: a signal name) is
 * printed as is; anything else as esc_quoted() (text) or a code span
 * (Markdown), so it cannot pass for a value corral writes.
 */
void esc_enum(FILE *f, struct ustr u, const char *const *set, enum esc_kind k);
bool esc_known(struct ustr u, const char *const *set);
/*
 * A JSON string made of pieces: esc_json_open(), then pieces (our own
 * text via us_lit, journal strings), then esc_json_close().
 */
void esc_json_open(FILE *f);
void esc_json_piece(FILE *f, struct ustr u, enum esc_kind k);
void esc_json_close(FILE *f);
/* argv (a ustr of NUL-separated elements, argc of them): each element
 * quoted as a shell reads it back (text, Markdown code span) or as a JSON
 * array of strings. */
void esc_argv(FILE *f, struct ustr argv, int argc, enum esc_kind k);

/* The known sets (esc.c). */
extern const char *const esc_reasons[];	 /* end / ending "reason" */
extern const char *const esc_verdicts[]; /* escape "verdict" */
extern const char *const esc_whys[];	 /* stack "why" */

/* ------------------------------------------------------------- model */

/* How a process ended, which is also its colour in the timeline. */
enum rpt_how {
	HOW_OK,	     /* exit status 0 */
	HOW_FAILED,  /* exit status != 0, or a signal not sent by corral */
	HOW_KILLED,  /* ended by corral while it ended the tree */
	HOW_CRASHED, /* SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGSYS, core
		      */
	HOW_LEFT,    /* left behind by the command (then ended by corral) */
	HOW_UNKNOWN, /* no exit in the journal (it was cut, or corral died) */
	HOW__COUNT
};

struct rproc {
	int pid, tgid, nspid;
	int parent;  /* index, -1 for a root */
	int creator; /* the task (tid) that forked it, 0 if unknown */
	int first_child, next_sibling, last_child;
	double born, ended; /* ended < 0: no exit event */
	double ending_at;   /* when corral started ending it, or -1 */
	int status, sig;    /* exit status, or the killing signal */
	bool core, setup, left, has_exit, altered;
	uint8_t how;
	int nexecs, nthreads;
	int first_exec, last_exec; /* indexes in model.execs, -1 */
	int left_exec; /* argv the left event gave (not an exec) */
	int fork_exec; /* what its creator ran when it forked, -1 unknown */
	int fork_gen;  /* forks between it and that exec (1: its creator's) */
	int cmd_exec;  /* the exec whose argv names it: its own, else the one
			  it was forked running (fork_exec), else left_exec */
	int forks;     /* generations between it and that exec (0: its own) */
	char *exit_extra;   /* the exit event's other keys, as JSON written
			     * by out_json_str (so escaped) */
	unsigned long line; /* line that created it */
	struct ustr core_file_; /* --core: the path of its (last) core */
	struct ustr core_cut_;	/* why that core is short; absent: whole */
};

struct rexec {
	int proc, next;
	double t;
	struct ustr path;
	struct ustr argv; /* elements separated by NUL */
	int argc;
	int former;
	struct ustr cwd; /* where it exec'd (schema 3 from issue 25) */
};

struct rthread {
	int tid, proc;
	double born, ended;
};

/* A mark on a process's row (tracer/base/events.def: MARK, and EV's mark). */
enum rpt_mark {
#define MARK(id, name) MK_##id,
#include "events.def"
#undef MARK
	MK__COUNT,
	MK_NONE = -1 /* an event that marks nothing */
};
/* Its name: Perfetto's category, the HTML's MK table. */
extern const char *const rpt_mark_names[MK__COUNT];

struct rmark {
	double t;
	int proc, tid;
	uint8_t kind;
	int signo;
	struct ustr text;  /* signal name, call + why + frames, frames... */
	struct ustr extra; /* escape: verdict; stack: why */
	unsigned long line;
};

struct rnote {
	unsigned long line; /* 0: about the whole journal */
	struct ustr msg;    /* may hold journal strings */
	char *shown; /* msg escaped for a terminal (corral_report_note) */
};

/* A simple open-addressing map pid -> index (the latest task with it). */
struct pidmap {
	int *key, *val;
	size_t cap, n;
};

/* The value for key k (not 0), or -1; 0 or -ENOMEM. */
int pm_get(const struct pidmap *m, int k);
int pm_put(struct pidmap *m, int k, int v);

/* survivor and fuse_abort lines kept (corral writes at most 100 + 64) */
#define RPT_LISTED 128

struct corral_report {
	struct ustr name; /* the journal's name (a path of the caller's) */
	int schema;
	struct ustr version;
	double t_start;	  /* t of the start line */
	struct ustr wall; /* wall clock of the start, if the journal has one */
	struct ustr host, cwd; /* schema 2 */
	struct ustr command;   /* NUL-separated */
	int command_argc;
	double timeout;
	int corral_pid;

	struct rproc *procs;
	size_t nprocs, procs_cap;
	struct rexec *execs;
	size_t nexecs, execs_cap;
	struct rthread *threads;
	size_t nthreads, threads_cap;
	struct rmark *marks;
	size_t nmarks, marks_cap;
	struct rnote *notes;
	size_t nnotes, notes_cap;
	unsigned long notes_dropped;
	struct pidmap procmap, threadmap;

	unsigned long lines, events, unknown_events, altered_lines;
	unsigned long n_execs; /* exec events (nexecs also counts left argv) */
	double t_last;
	/* the ending */
	bool has_ending;
	double ending_t;
	struct ustr ending_reason;
	struct ustr ending_signal;
	/* the end line */
	bool has_end;
	double end_t, duration;
	int exit_code, end_status, end_sig;
	struct ustr end_reason, end_signal, exec_error, by_signal;
	bool sandbox_failed;
	double phase_grace, phase_stop, phase_kill;
	long end_processes, end_threads, end_execs, end_left, end_killed,
		end_survivors, end_escapes, end_stacks, end_journal_errors,
		end_unstopped, end_journal_lost;
	int end_intact;	 /* schema 2 journal_intact: 1, 0, -1 not said */
	char *end_extra; /* end keys this reader does not know, as JSON written
			  * by out_json_str */
	bool cut;	 /* the last line was cut */
	unsigned long cut_line;
	/* the digest chain (schema 2), checked before the lines are read */
	struct rbad {
		unsigned long line;
		int verdict; /* enum corral_line_verdict */
	} * bad;
	size_t nbad, bad_cap, bad_next;
	int chain; /* CHAIN_* */
	unsigned long chain_unchecked;
	unsigned long chain_first_bad;
	char chain_why[256]; /* from the check: shown through us_lit + esc */
	/* Several runs in one file (checked files only): the lines of the run
	 * the last end line belongs to, which is what is shown; 0: all. */
	size_t runs;
	unsigned long sel_first, sel_last;
	unsigned sel_run;
	/* counts of what the model found */
	unsigned long n_signals, n_stops, n_escapes, n_stacks, n_denied;
	unsigned long n_setup; /* bubblewrap's setup processes (counted ok) */
	unsigned long n_cores; /* core files written (core events with a path) */
	/* survivor lines (issue 22): tasks still there when corral ended */
	struct rsurvivor {
		int pid, tgid;
		struct ustr state, wchan;
	} survivors[RPT_LISTED];
	size_t nsurvivors;
	/* fuse_abort lines: connections members served, aborted at the end */
	struct rfuse {
		long conn;
		int pid;
		bool aborted;
		struct ustr error;
	} fuse[RPT_LISTED];
	size_t nfuse;
	unsigned long n_ptrace; /* ptrace events: who traced whom */
	unsigned long how_count[HOW__COUNT];
};

/* The latest thread with this tid, or -1. */
int rpt_thread_index(const struct corral_report *m, int tid);
enum {
	CHAIN_NONE,	 /* no line carries a digest (schema 1) */
	CHAIN_INTACT,	 /* every line checked and in order */
	CHAIN_BROKEN,	 /* lines changed, inserted, removed... (m->bad) */
	CHAIN_UNCHECKED, /* digests, but no key (a run without its end) */
	CHAIN_PIPE,	 /* not checked: read from a pipe */
};

/* Build the model from a reader; 0, or -EINVAL with err naming the line. */
int rpt_build(struct corral_report *m, struct jreader *r, char *err,
	      size_t errlen);
void rpt_note(struct corral_report *m, unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The journal chain check (corral_journal_verify, api.c) ran before the
 * lines are read; the verdict of line `line` when it failed the chain
 * (changed, inserted, lines removed before it...), else -1.
 */
int rpt_line_altered(struct corral_report *m, unsigned long line);

/* -------------------------------------------------------------- output */

const char *rpt_how_name(int how);
/* The command line of a process (its last exec), or its parent's. */
const struct rexec *rpt_exec_of(const struct corral_report *m, int proc);
/* The name of an exec as the tree's "(was ...)" gives it: argv[0]'s
 * basename, else the path's, cut to 64 bytes; "?" (a view). */
struct ustr rpt_exec_name(const struct rexec *x);
/* Process name for titles: basename of argv[0] or path; "?" (a view). */
struct ustr rpt_proc_name(const struct corral_report *m, int proc);
/* How it ended, as --tree prints it: "exit 0", "killed by SIGTERM"... */
void rpt_proc_end_text(const struct corral_report *m, int proc, char *buf,
		       size_t len);

/*
 * The result and the ending in plain words (words.c), one wording for the
 * summaries and the Perfetto trace: our words as they are, journal strings
 * escaped for kind K; PIECE: inside a JSON string being written in pieces
 * (between esc_json_open() and esc_json_close()).
 */
struct words {
	FILE *f;
	enum esc_kind k;
	bool piece;
};
/* "corral exited 124 because the timeout expired; the command was killed
 * by SIGTERM" (without an end line: "unknown: ..."). */
void words_result(const struct words *w, const struct corral_report *m);
/* "the tree was ended [from 0.3s ]because the timeout expired" (AT: the
 * time, for outputs that do not place it themselves). */
void words_ending(const struct words *w, const struct corral_report *m,
		  bool at);

/* Output helpers (out.c). */
enum { OUT_RAW, OUT_TEXT, OUT_JSON, OUT_JSON_ASCII };
/* The bytes of a JSON string literal (without the quotes) for n bytes;
 * non-UTF-8 bytes as \udcXX (mode OUT_JSON) or as the text \xNN
 * (OUT_JSON_ASCII); '<' '>' '&' always escaped. esc.c's JSON escaper, and
 * the model's re-serialisation of keys it keeps as JSON. */
void out_json_chars(FILE *f, const char *s, size_t n, int mode);
void out_json_str(FILE *f, const char *s, size_t n, int mode);
void out_num(FILE *f, double v);

#endif
