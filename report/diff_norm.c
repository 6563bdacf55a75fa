/*
 * diff_norm.c - what of a program's path and argv is the same from run to
 * run. Two runs of one job differ in their pids, their times and the
 * names mktemp chose; a process is matched by the rest (diff_match.c).
 * By default these become placeholders:
 *
 *   a pid of the run (a number that is one of its processes' pids)  #pid
 *   an ISO date and time, or a time of day                          #time
 *   a Unix time in seconds or milliseconds (10 or 13 digits, 1...)  #epoch
 *   0x and hex digits (an address); a run of 16+ hex digits         0x# #hex
 *   mktemp's and Python's random names: tmp.XXXXXX, .XXXXXX (mixed
 *   case), tmpXXXXXXXX                                              .# tmp#
 *
 * and each match of a caller's pattern (--normalize) becomes "#". The
 * normalised bytes are keys only: they are hashed and compared, never
 * shown (an output shows what the journal says, escaped).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "grow.h"

/* ------------------------------------------------------ interning */

uint64_t dt_hash(const void *p, size_t n, uint64_t seed)
{
	/* FNV-1a, 64 bits: keys are short, and a collision only costs a
	 * compare (the bytes are checked) */
	const unsigned char *s = p;
	uint64_t h = seed ^ 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static int dt_rehash(struct dtab *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024;
	int32_t *slot = calloc(cap, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < t->ne; i++) {
		size_t k = t->e[i].h & (cap - 1);
		while (slot[k])
			k = (k + 1) & (cap - 1);
		slot[k] = (int32_t)i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->cap = cap;
	return 0;
}

int dt_intern(struct dtab *t, const void *p, size_t n)
{
	if ((t->ne + 1) * 2 > t->cap && dt_rehash(t))
		return -ENOMEM;
	uint64_t h = dt_hash(p, n, 0);
	size_t k = h & (t->cap - 1);
	for (; t->slot[k]; k = (k + 1) & (t->cap - 1)) {
		const struct dent *e = &t->e[t->slot[k] - 1];
		if (e->h == h && e->n == n && !memcmp(e->p, p, n))
			return t->slot[k] - 1;
	}
	if (t->ne >= INT32_MAX - 1 || GROW(t->e, t->ecap, t->ne + 1))
		return -ENOMEM;
	char *c = malloc(n ? n : 1);
	if (!c)
		return -ENOMEM;
	if (n)
		memcpy(c, p, n);
	t->e[t->ne] = (struct dent){.p = c, .n = n, .h = h};
	t->slot[k] = (int32_t)++t->ne;
	return (int)t->ne - 1;
}

void dt_free(struct dtab *t)
{
	for (size_t i = 0; i < t->ne; i++)
		free(t->e[i].p);
	free(t->e);
	free(t->slot);
	*t = (struct dtab){0};
}

/* ------------------------------------------------------ patterns */

int dn_init(struct dnorm *n, const char *const *patterns, bool defaults,
	    char *err, size_t errlen)
{
	*n = (struct dnorm){.defaults = defaults};
	size_t k = 0;
	while (patterns && patterns[k])
		k++;
	if (k && !(n->re = calloc(k, sizeof(*n->re))))
		return -ENOMEM;
	for (; n->nre < k; n->nre++) {
		int e = regcomp(&n->re[n->nre], patterns[n->nre],
				REG_EXTENDED);
		if (e) {
			char why[128];
			regerror(e, &n->re[n->nre], why, sizeof(why));
			snprintf(err, errlen, "--normalize pattern %zu: %s",
				 n->nre + 1, why);
			return -EINVAL;
		}
	}
	return 0;
}

void dn_free(struct dnorm *n)
{
	for (size_t i = 0; i < n->nre; i++)
		regfree(&n->re[i]);
	free(n->re);
	dt_free(&n->keys);
	*n = (struct dnorm){0};
}

/* ------------------------------------------------ the default rules */

static bool an(char c)
{
	return isalnum((unsigned char)c);
}

/* The length of p that has the shape pat ('d' a digit, others as they
 * are), or 0. */
static size_t shape(const char *p, size_t n, const char *pat)
{
	size_t i = 0;
	for (; pat[i]; i++) {
		if (i >= n)
			return 0;
		if (pat[i] == 'd' ? !isdigit((unsigned char)p[i])
				  : p[i] != pat[i])
			return 0;
	}
	return i;
}

/* An ISO date with its time and zone, or a time of day: its length. */
static size_t a_time(const char *p, size_t n)
{
	size_t i = shape(p, n, "dddd-dd-dd");
	if (!i)
		return shape(p, n, "dd:dd:dd");
	if (i < n && (p[i] == 'T' || p[i] == ' ') &&
	    shape(p + i + 1, n - i - 1, "dd:dd"))
		i += 6 + shape(p + i + 6, n - i - 6, ":dd");
	else
		return i;
	if (i < n && (p[i] == '.' || p[i] == ',') && i + 1 < n &&
	    isdigit((unsigned char)p[i + 1]))
		for (i++; i < n && isdigit((unsigned char)p[i]); i++)
			;
	if (i < n && p[i] == 'Z')
		i++;
	else if (i < n && (p[i] == '+' || p[i] == '-'))
		i += 1 + shape(p + i + 1, n - i - 1, "dd") +
		     shape(p + i + 3, n - i - 3, ":dd");
	return i;
}

static size_t run_of(const char *p, size_t n, int (*is)(int))
{
	size_t i = 0;
	while (i < n && is((unsigned char)p[i]))
		i++;
	return i;
}

/* A number at a word's start (p[0] a digit): a pid of the run, a Unix
 * time, a long hex run; *ph its placeholder, or 0 to keep it. */
static size_t a_number(const struct corral_report *m, const char *p, size_t n,
		       const char **ph)
{
	size_t hex = run_of(p, n, isxdigit), dig = run_of(p, n, isdigit);
	*ph = NULL;
	if (hex >= 16 && (hex == n || !an(p[hex]))) {
		*ph = "#hex";
		return hex;
	}
	if (dig < n && (an(p[dig]) || p[dig] == '.'))
		return dig; /* 12abc, 1.5: not a number of ours */
	if ((dig == 10 || dig == 13) && p[0] == '1') {
		*ph = "#epoch";
		return dig;
	}
	if (dig <= 9) {
		long v = strtol(p, NULL, 10);
		if (v > 1 && (pm_get(&m->procmap, (int)v) >= 0 ||
			      pm_get(&m->threadmap, (int)v) >= 0))
			*ph = "#pid";
	}
	return dig;
}

/* A random name's tail after '.' (6 to 16 letters and digits, upper and
 * lower case both: mktemp's), or tmp + 8 of [a-z0-9_] (Python's). */
static size_t a_temp(const char *p, size_t n, size_t at, const char **ph)
{
	*ph = NULL;
	if (p[at] == '.' && at + 1 < n) {
		size_t k = run_of(p + at + 1, n - at - 1, isalnum);
		bool up = false, lo = false;
		for (size_t i = 0; i < k; i++) {
			up |= isupper((unsigned char)p[at + 1 + i]) != 0;
			lo |= islower((unsigned char)p[at + 1 + i]) != 0;
		}
		bool tmp = at >= 3 && !memcmp(p + at - 3, "tmp", 3);
		if (k >= 6 && k <= 16 && ((up && lo) || tmp)) {
			*ph = ".#";
			return k + 1;
		}
		return 0;
	}
	if ((at == 0 || !an(p[at - 1])) && shape(p + at, n - at, "tmp")) {
		size_t k = 0;
		while (at + 3 + k < n && (islower((unsigned char)p[at + 3 + k]) ||
					  isdigit((unsigned char)p[at + 3 + k]) ||
					  p[at + 3 + k] == '_'))
			k++;
		if (k == 8 && (at + 11 == n || !an(p[at + 11]))) {
			*ph = "tmp#";
			return 11;
		}
	}
	return 0;
}

struct dbuf {
	char *p;
	size_t n, cap;
	bool oom;
};

static void db_put(struct dbuf *b, const void *s, size_t n)
{
	if (b->oom || GROW(b->p, b->cap, b->n + n + 1)) {
		b->oom = true;
		return;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = 0;
}

/* The length of a volatile part at p[at] (*ph: what replaces it), or 0. */
static size_t volatile_at(const struct corral_report *m, const char *p,
			  size_t n, size_t at, const char **ph)
{
	bool word = at == 0 || !an(p[at - 1]);
	size_t k;
	*ph = NULL;
	if (word && (k = a_time(p + at, n - at)) > 0) {
		*ph = "#time";
		return k;
	}
	if (word && p[at] == '0' && at + 2 < n && (p[at + 1] == 'x') &&
	    isxdigit((unsigned char)p[at + 2])) {
		*ph = "0x#";
		return 2 + run_of(p + at + 2, n - at - 2, isxdigit);
	}
	if (word && isxdigit((unsigned char)p[at]) &&
	    (at == 0 || p[at - 1] != '.')) {
		if (!isdigit((unsigned char)p[at])) {
			k = run_of(p + at, n - at, isxdigit);
			if (k >= 16 && (at + k == n || !an(p[at + k]))) {
				*ph = "#hex";
				return k;
			}
		} else {
			return a_number(m, p + at, n - at, ph);
		}
	}
	return a_temp(p, n, at, ph);
}

static void defaults(const struct corral_report *m, const char *p, size_t n,
		     struct dbuf *o)
{
	size_t from = 0;
	for (size_t at = 0; at < n;) {
		const char *ph;
		size_t k = volatile_at(m, p, n, at, &ph);
		if (!k) {
			at++;
			continue;
		}
		if (ph) {
			db_put(o, p + from, at - from);
			db_put(o, ph, strlen(ph));
			from = at + k;
		}
		at += k;
	}
	db_put(o, p + from, n - from);
}

/* Each match of pattern re in b (NUL-terminated) becomes "#". */
static void pattern(const regex_t *re, struct dbuf *b)
{
	struct dbuf o = {0};
	size_t at = 0;
	regmatch_t mt;
	while (!b->oom && at <= b->n &&
	       !regexec(re, b->p + at, 1, &mt, at ? REG_NOTBOL : 0)) {
		size_t so = at + (size_t)mt.rm_so, eo = at + (size_t)mt.rm_eo;
		db_put(&o, b->p + at, so - at);
		db_put(&o, "#", 1);
		if (eo == so) {
			/* an empty match: keep the byte, go past it */
			if (so < b->n)
				db_put(&o, b->p + so, 1);
			eo = so + 1;
		}
		at = eo;
	}
	if (at < b->n)
		db_put(&o, b->p + at, b->n - at);
	o.oom |= b->oom;
	free(b->p);
	*b = o;
	if (!b->p && !b->oom)
		db_put(b, "", 0);
}

/*
 * One path or argv element of run m, normalised, appended to out with a
 * NUL after it (an element has none of its own: the journal's strings
 * are C strings).
 */
static void elem(const struct dnorm *n, const struct corral_report *m,
		 const char *p, size_t len, struct dbuf *out)
{
	struct dbuf b = {0};
	if (n->defaults)
		defaults(m, p, len, &b);
	else
		db_put(&b, p, len);
	for (size_t i = 0; i < n->nre && !b.oom; i++)
		pattern(&n->re[i], &b);
	if (b.oom)
		out->oom = true;
	else
		db_put(out, b.p ? b.p : "", b.n + 1);
	free(b.p);
}

/* ------------------------------------------------------ one exec */

/* The normalised keys of exec x: "E" path NUL argv..., and "P" path. */
static int keys_of(struct dnorm *n, const struct corral_report *m,
		   const struct rexec *x, int *xid, int *pathid)
{
	struct dbuf b = {0};
	size_t pl, al;
	const char *path = us_key_bytes(x->path, &pl);
	const char *argv = us_key_bytes(x->argv, &al);
	db_put(&b, "P", 1);
	if (path)
		elem(n, m, path, pl, &b);
	int e = b.oom ? -ENOMEM : dt_intern(&n->keys, b.p, b.n);
	if (e < 0)
		goto out;
	*pathid = e;
	b.p[0] = 'E';
	for (size_t i = 0, k = 0; argv && k < (size_t)x->argc && i <= al; k++) {
		size_t l = strnlen(argv + i, al - i);
		elem(n, m, argv + i, l, &b);
		i += l + 1;
	}
	e = b.oom ? -ENOMEM : dt_intern(&n->keys, b.p, b.n);
	if (e >= 0)
		*xid = e;
out:
	free(b.p);
	return e < 0 ? e : 0;
}

int dn_exec(struct dnorm *n, struct dcache *c, const struct corral_report *m,
	    const struct rexec *x, int *xid, int *pathid)
{
	/* a run execs the same few programs many times: each raw path and
	 * argv is normalised once (the raw bytes are this run's: a pid is
	 * a pid of this run only) */
	size_t pl, al;
	const char *path = us_key_bytes(x->path, &pl);
	const char *argv = us_key_bytes(x->argv, &al);
	struct dbuf raw = {0};
	db_put(&raw, path ? "p" : "-", 1);
	db_put(&raw, path ? path : "", pl);
	db_put(&raw, "", 1);
	db_put(&raw, argv ? argv : "", al);
	int id = raw.oom ? -ENOMEM : dt_intern(&c->raw, raw.p, raw.n);
	free(raw.p);
	if (id < 0)
		return id;
	if ((size_t)id < c->n) {
		*xid = c->val[2 * id];
		*pathid = c->val[2 * id + 1];
		return 0;
	}
	if (GROW(c->val, c->cap, 2 * (size_t)id + 2))
		return -ENOMEM;
	int e = keys_of(n, m, x, xid, pathid);
	if (e < 0)
		return e;
	c->val[2 * id] = *xid;
	c->val[2 * id + 1] = *pathid;
	c->n = (size_t)id + 1;
	return 0;
}

void dc_free(struct dcache *c)
{
	dt_free(&c->raw);
	free(c->val);
	*c = (struct dcache){0};
}
