/*
 * diff.h - corral diff's own pieces (not exported): the normaliser and
 * the keys (diff_norm.c), matching two runs (diff_match.c), what differs
 * between them (diff_find.c), grouping N runs (diff_group.c), and the
 * writers (diff_out.c: text and Markdown, diff_json.c, diff_html.c). The
 * public side is corral_diff_* (diff.c, <corral/report.h>).
 *
 * Everything reads the runs' models (report.h) only: a diff is two
 * reports put side by side, so it works on journals from anywhere.
 */
#ifndef CORRAL_DIFF_INTERNAL_H
#define CORRAL_DIFF_INTERNAL_H

#include <regex.h>

#include "report.h"

/* ----------------------------------------------------------- the keys */

/*
 * Interned byte strings: equal bytes, equal id. One table holds every
 * run's keys, so that an id means the same in each run.
 */
struct dtab {
	struct dent {
		char *p;
		size_t n;
		uint64_t h;
	} * e;
	size_t ne, ecap;
	int32_t *slot; /* id + 1; 0: empty */
	size_t cap;
};

uint64_t dt_hash(const void *p, size_t n, uint64_t seed);
/* The id of bytes [p, p+n): a new one the first time; -ENOMEM. */
int dt_intern(struct dtab *t, const void *p, size_t n);
void dt_free(struct dtab *t);

struct dnorm {
	bool defaults; /* pids, times, temporary names, addresses */
	regex_t *re;   /* the caller's patterns */
	size_t nre;
	struct dtab keys; /* normalised programs and identities */
};

int dn_init(struct dnorm *n, const char *const *patterns, bool defaults,
	    char *err, size_t errlen);
void dn_free(struct dnorm *n);

/* Per run: each raw path and argv -> its normalised keys. */
struct dcache {
	struct dtab raw;
	int *val; /* 2 a raw id: xid, pathid */
	size_t n, cap;
};
/* Exec x of run m: the id of its normalised path and argv (*xid) and of
 * its path alone (*pathid); 0 or -ENOMEM. */
int dn_exec(struct dnorm *n, struct dcache *c, const struct corral_report *m,
	    const struct rexec *x, int *xid, int *pathid);
void dc_free(struct dcache *c);

/* How a process of one run was matched with one of the other. */
enum dmatch {
	DM_NONE,     /* not matched */
	DM_ROOT,     /* the two commands (whatever they ran) */
	DM_UNIQUE,   /* the one child of its program and argv on both sides */
	DM_POSITION, /* k-th of n children of that program on both sides */
	DM_COUNTS,   /* k-th of them, but there are more on one side */
	DM_SIMILAR,  /* the one left of its program's path on both sides: the
			argv differs */
	DM__COUNT
};
extern const char *const dm_names[DM__COUNT];

/* One run as the diff sees it: its model and the keys of its processes. */
struct drun {
	const struct corral_report *m;
	int *xid;	 /* exec -> its normalised path and argv */
	int *pathid;	 /* exec -> its normalised path */
	int *ident;	 /* proc -> what it is: its first program (or what it
			    was forked running, and how many forks down) */
	int *sim;	 /* proc -> a looser key: its first program's path */
	uint64_t *chain; /* proc -> the programs it ran, in order, hashed */
	int *other;	 /* proc -> the matched process of the other run */
	uint8_t *how;	 /* proc -> enum dmatch */
	int *stack;	 /* proc -> its last stack mark, -1 */
	int *ndesc;	 /* proc -> how many descendants it has */
	bool passing;	 /* the run's result: corral exited 0 */
};

/* Keys for every exec and process of r->m (allocates r's arrays). */
int dn_run(struct dnorm *n, struct drun *r);
void dr_free(struct drun *r);

/* A process's siblings sorted by key: (ident, index), ord the rank among
 * those with its ident. */
struct dsib {
	int ident, idx, ord;
};
/* The children of proc in r (proc < 0: the roots), sorted, in *v. */
int ds_children(const struct drun *r, int proc, struct dsib **v, size_t *cap,
		size_t *n);

/* Match a's processes with b's, top down (r->other, r->how). */
int dm_match(struct drun *a, struct drun *b);

/* ------------------------------------------------------- the findings */

/* What differs about a matched process (dentry.what). */
enum {
	DW_ARGV = 1,  /* matched as DM_SIMILAR or DM_ROOT: argv differs */
	DW_END = 2,   /* how it ended: status, signal, core, left, killed */
	DW_EXECS = 4, /* the programs it ran after its first */
};

struct dentry {
	int a, b;      /* the process in A, in B (-1: none) */
	unsigned what; /* DW_* */
	double ratio;  /* slower/faster: B's duration over A's */
};

struct dlist {
	struct dentry *v;
	size_t n, cap;
};
int dl_add(struct dlist *l, struct dentry e);

/* One figure of the runs' endings that differs. */
struct dend {
	const char *key; /* "exit_code", "reason", "survivors"... */
	bool str;	 /* sa/sb, else na/nb */
	long na, nb;
	struct ustr sa, sb; /* views of the models' strings */
};
#define DIFF_ENDS 16

/* What N runs' failing ones share (diff_group.c). */
enum gkind {
	GK_ONLY_FAILING, /* a process every failing run has, no passing one */
	GK_MISSING,	 /* a process every passing run has, no failing one */
	GK_ENDED,	 /* ends in every failing run as no passing run saw */
	GK_EXECS,	 /* runs programs no passing run saw it run */
	GK_SLOWER,	 /* slower in every failing run than in any passing */
	GK_ENDING,	 /* the runs' endings */
	GK__COUNT
};
struct gfind {
	uint8_t kind;
	int frun, fproc; /* an example in a failing run (-1: none) */
	int prun, pproc; /* and in a passing one */
	double fmin, pmax;
	const char *key; /* GK_ENDING */
};
struct dgroup {
	size_t npass, nfail;
	struct gfind *v;
	size_t n, cap;
};

struct corral_diff {
	double factor, floor; /* resolved */
	struct dnorm norm;
	size_t nruns;
	struct drun *runs;
	bool group;
	/* two runs: A = runs[0], B = runs[1] */
	bool has_first;
	struct dfirst {
		int side;  /* 0: an event of A, 1: of B */
		int kind;  /* 0 fork, 1 exec, 2 exit */
		int proc;  /* in that run */
		int exec;  /* kind 1: the exec */
		double t;  /* from that run's start */
	} first;
	struct dlist only_a, only_b, changed, slower, faster;
	struct dend ending[DIFF_ENDS];
	size_t nending;
	size_t matched, by_how[DM__COUNT];
	struct dgroup g;
};

/* The findings of two matched runs (diff_find.c). */
int df_find(struct corral_diff *d);
/* The first divergence in the order events happened (diff_first.c). */
void df_first(struct corral_diff *d);
/* The runs' endings side by side (diff_ending.c). */
void df_ending(struct corral_diff *d, const struct corral_report *a,
	       const struct corral_report *b);
/* N runs (diff_group.c). */
int dg_group(struct corral_diff *d);

/* ------------------------------------------------------------ writers */

/* A process's duration, or -1 when it has no exit. */
double dp_duration(const struct corral_report *m, int proc);
/* Does the journal fail `corral verify`? The words why, or NULL. */
const char *dv_trouble(const struct corral_report *m);
/* Its CPU time and peak RSS from the exit line, when the journal has
 * them (false: none). */
bool dp_usage(const struct corral_report *m, int proc, double *cpu,
	      double *rss_kb);

/* A process shown (diff_show.c): its argv (cut but for JSON); its
 * ancestors' names (JSON: an array from the root to it); how it ended and
 * how long it ran, in our words; the programs it ran. */
void dshow_argv(FILE *f, const struct corral_report *m, int proc,
		enum esc_kind k);
void dshow_lineage(FILE *f, const struct corral_report *m, int proc,
		   enum esc_kind k);
void dshow_figures(char *buf, size_t len, const struct corral_report *m,
		   int proc);
void dshow_chain(FILE *f, const struct corral_report *m, int proc,
		 enum esc_kind k);

void dout_text(const struct corral_diff *d, FILE *f,
	       enum corral_report_format fmt);
void dout_group_text(const struct corral_diff *d, FILE *f,
		     enum corral_report_format fmt);
/* JSON pieces (diff_json.c): a run's journal, verdict and result; a
 * process's figures in run r (null when proc < 0). */
void dj_run(FILE *f, const struct corral_report *m);
void dj_figures(FILE *f, const struct drun *r, int proc);
void dout_json(const struct corral_diff *d, FILE *f);
void dout_group_json(const struct corral_diff *d, FILE *f);

#endif
