/*
 * jread.c - the journal reader: lines, each parsed with yajl into a small
 * tree (struct jdoc) whose strings hold the original bytes.
 *
 * Why yajl, and why its callback interface: docs/report.md. In short, it
 * is the only one of jansson, json-c, yajl and cJSON that neither rejects
 * nor replaces the lone surrogates corral writes for bytes that are not
 * UTF-8 (\udcXX): it decodes them to the three bytes ED B2..B3 xx, which
 * no valid UTF-8 input can produce, so the byte comes back exactly. Its
 * callbacks, filling arrays reused from line to line, parse a 100 MB
 * journal about five times faster than its tree interface.
 *
 * A line is never held beyond RPT_LINE_MAX bytes: a longer one is
 * reported, whatever it contains.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <yajl/yajl_parse.h>

#include "grow.h"
#include "report.h"

#define READ_CHUNK (1u << 20)

/* ------------------------------------------------------------ jdoc */

static int32_t jd_add(struct jdoc *d, uint8_t type)
{
	if (GROW(d->n, d->ncap, d->nn + 1)) {
		d->oom = true;
		return -1;
	}
	int32_t i = (int32_t)d->nn++;
	struct jnode *n = &d->n[i];
	memset(n, 0, sizeof(*n));
	n->type = type;
	n->first = n->last = n->next = -1;
	return i;
}

static bool jd_reserve(struct jdoc *d, size_t more)
{
	if (GROW(d->strs, d->scap, d->slen + more)) {
		d->oom = true;
		return false;
	}
	return true;
}

/*
 * Copy a decoded string, turning each U+DC80..U+DCFF (which yajl decodes
 * from \udcXX to ED B2..B3 xx) back into the byte it stands for.
 */
static bool jd_putstr(struct jdoc *d, const unsigned char *s, size_t n,
		      uint32_t *off, uint32_t *len)
{
	if (!jd_reserve(d, n + 1))
		return false;
	char *o = d->strs + d->slen, *o0 = o;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == 0xED && i + 2 < n &&
		    (s[i + 1] == 0xB2 || s[i + 1] == 0xB3) &&
		    (s[i + 2] & 0xC0) == 0x80) {
			*o++ = (char)(((s[i + 1] & 0x03) << 6) |
				      (s[i + 2] & 0x3F));
			i += 2;
			continue;
		}
		*o++ = (char)s[i];
	}
	*o = 0;
	*off = (uint32_t)d->slen;
	*len = (uint32_t)(o - o0);
	d->slen += (size_t)(o - o0) + 1;
	return true;
}

struct ctx {
	struct jdoc *d;
	bool has_key;
	uint32_t key, klen;
};

/* Attach a new node to the open container (or make it the root). */
static int32_t value(struct ctx *c, uint8_t type)
{
	struct jdoc *d = c->d;
	int32_t i = jd_add(d, type);
	if (i < 0)
		return -1;
	if (c->has_key) {
		d->n[i].key = c->key;
		d->n[i].klen = c->klen;
		c->has_key = false;
	} else {
		d->n[i].key = 0;
		d->n[i].klen = 0;
	}
	if (d->depth > 0) {
		struct jnode *p = &d->n[d->stack[d->depth - 1]];
		if (p->last >= 0)
			d->n[p->last].next = i;
		else
			p->first = i;
		p->last = i;
	}
	return i;
}

static int cb_null(void *x)
{
	return value(x, J_NULL) >= 0;
}

static int cb_bool(void *x, int b)
{
	struct ctx *c = x;
	int32_t i = value(c, J_BOOL);
	if (i < 0)
		return 0;
	c->d->n[i].b = b;
	return 1;
}

static int cb_number(void *x, const char *s, size_t n)
{
	struct ctx *c = x;
	int32_t i = value(c, J_NUM);
	if (i < 0)
		return 0;
	struct jnode *nd = &c->d->n[i];
	if (!jd_putstr(c->d, (const unsigned char *)s, n, &nd->s, &nd->slen))
		return 0;
	nd = &c->d->n[i];
	nd->num = strtod(c->d->strs + nd->s, NULL);
	return 1;
}

static int cb_string(void *x, const unsigned char *s, size_t n)
{
	struct ctx *c = x;
	int32_t i = value(c, J_STR);
	if (i < 0)
		return 0;
	uint32_t off, len;
	if (!jd_putstr(c->d, s, n, &off, &len))
		return 0;
	c->d->n[i].s = off;
	c->d->n[i].slen = len;
	return 1;
}

static int open_container(struct ctx *c, uint8_t type)
{
	struct jdoc *d = c->d;
	if (d->depth >= RPT_DEPTH_MAX) {
		d->too_deep = true;
		return 0;
	}
	int32_t i = value(c, type);
	if (i < 0)
		return 0;
	d->stack[d->depth++] = i;
	return 1;
}

static int close_container(void *x)
{
	struct ctx *c = x;
	if (c->d->depth > 0)
		c->d->depth--;
	return 1;
}

static int cb_start_map(void *x)
{
	return open_container(x, J_OBJ);
}

static int cb_start_array(void *x)
{
	return open_container(x, J_ARR);
}

static int cb_key(void *x, const unsigned char *s, size_t n)
{
	struct ctx *c = x;
	if (!jd_putstr(c->d, s, n, &c->key, &c->klen))
		return 0;
	c->has_key = true;
	return 1;
}

static const yajl_callbacks callbacks = {
	.yajl_null = cb_null,
	.yajl_boolean = cb_bool,
	.yajl_number = cb_number,
	.yajl_string = cb_string,
	.yajl_start_map = cb_start_map,
	.yajl_map_key = cb_key,
	.yajl_end_map = close_container,
	.yajl_start_array = cb_start_array,
	.yajl_end_array = close_container,
};

const struct jnode *jd_get(const struct jdoc *d, const struct jnode *o,
			   const char *key)
{
	if (!o || o->type != J_OBJ)
		return NULL;
	size_t kl = strlen(key);
	for (int32_t i = o->first; i >= 0; i = d->n[i].next)
		if (d->n[i].klen == kl &&
		    !memcmp(d->strs + d->n[i].key, key, kl))
			return &d->n[i];
	return NULL;
}

bool jd_num(const struct jdoc *d, const struct jnode *o, const char *key,
	    double *v)
{
	const struct jnode *n = jd_get(d, o, key);
	if (!n || n->type != J_NUM)
		return false;
	*v = n->num;
	return true;
}

const char *jd_string(const struct jdoc *d, const struct jnode *o,
		      const char *key, size_t *len)
{
	const struct jnode *n = jd_get(d, o, key);
	if (!n || n->type != J_STR)
		return NULL;
	if (len)
		*len = n->slen;
	return d->strs + n->s;
}

/* ---------------------------------------------------------- lines */

int jr_open_fd(struct jreader *r, int fd)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->cap = READ_CHUNK;
	r->buf = malloc(r->cap);
	return r->buf ? 0 : -ENOMEM;
}

int jr_open_mem(struct jreader *r, const char *buf, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->buf = (char *)buf;
	r->end = len;
	r->eof = true;
	return 0;
}

void jr_close(struct jreader *r)
{
	if (r->fd >= 0)
		free(r->buf);
	free(r->doc.n);
	free(r->doc.strs);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

/* Make room and read more; -errno, 0 at end of input, 1 when read. */
static int fill(struct jreader *r)
{
	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	if (r->end == r->cap) {
		size_t cap = r->cap * 2;
		if (cap > RPT_LINE_MAX + READ_CHUNK)
			cap = RPT_LINE_MAX + READ_CHUNK;
		char *b = realloc(r->buf, cap);
		if (!b)
			return -ENOMEM;
		r->buf = b;
		r->cap = cap;
	}
	for (;;) {
		ssize_t n = read(r->fd, r->buf + r->end, r->cap - r->end);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0) {
			r->eof = true;
			return 0;
		}
		r->end += (size_t)n;
		return 1;
	}
}

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

static enum jr_status parse(struct jreader *r, bool last)
{
	struct jdoc *d = &r->doc;
	d->nn = d->slen = 0;
	d->depth = 0;
	d->too_deep = d->oom = false;
	if (blank(r->lp, r->llen))
		return JR_BLANK;
	struct ctx c = {.d = d};
	yajl_handle h = yajl_alloc(&callbacks, NULL, &c);
	if (!h)
		return JR_NOMEM;
	yajl_status st = yajl_parse(h, (const unsigned char *)r->lp, r->llen);
	if (st == yajl_status_ok)
		st = yajl_complete_parse(h);
	enum jr_status ret = JR_OK;
	if (st != yajl_status_ok) {
		if (d->oom) {
			ret = JR_NOMEM;
		} else if (d->too_deep) {
			snprintf(r->err, sizeof(r->err),
				 "nested deeper than %d levels", RPT_DEPTH_MAX);
			ret = JR_BAD;
		} else {
			unsigned char *e = yajl_get_error(h, 0, NULL, 0);
			snprintf(r->err, sizeof(r->err), "not JSON (%s)",
				 e ? (const char *)e : "parse error");
			/* yajl ends its messages with a newline */
			size_t el = strlen(r->err);
			while (el && (r->err[el - 1] == '\n' ||
				      r->err[el - 1] == ' '))
				r->err[--el] = 0;
			if (e)
				yajl_free_error(h, e);
			ret = last ? JR_CUT : JR_BAD;
		}
	} else if (d->nn == 0) {
		snprintf(r->err, sizeof(r->err), "no JSON value");
		ret = JR_BAD;
	}
	yajl_free(h);
	return ret;
}

enum jr_status jr_next(struct jreader *r)
{
	for (;;) {
		char *nl = memchr(r->buf + r->start + r->scanned, '\n',
				  r->end - r->start - r->scanned);
		if (nl) {
			r->line++;
			r->lp = r->buf + r->start;
			r->llen = (size_t)(nl - r->lp);
			r->start = (size_t)(nl - r->buf) + 1;
			r->scanned = 0;
			if (r->llen > RPT_LINE_MAX)
				return JR_TOOLONG;
			return parse(r, false);
		}
		r->scanned = r->end - r->start;
		if (r->scanned > RPT_LINE_MAX) {
			r->line++;
			return JR_TOOLONG;
		}
		if (r->eof) {
			if (r->start == r->end)
				return JR_EOF;
			/* the last line has no newline: corral was cut off */
			r->line++;
			r->lp = r->buf + r->start;
			r->llen = r->end - r->start;
			r->start = r->end;
			r->scanned = 0;
			return parse(r, true);
		}
		int e = fill(r);
		if (e < 0) {
			snprintf(r->err, sizeof(r->err), "read: %s",
				 strerror(-e));
			return e == -ENOMEM ? JR_NOMEM : JR_IOERR;
		}
	}
}
