/*
 * chain.c - the journal's keyed digest chain, and the reader that checks it
 * (corral_journal_verify, `corral verify`).
 *
 * Every line ends with ,"n":N,"h":"<hex>"}: N counts the lines of the run
 * from 0 (the start line), and hex is HMAC-SHA256(key, P || B), where P is
 * the previous line's digest as 32 bytes (32 zero bytes for the start line)
 * and B the line's bytes up to, not including, ,"h":" . Changing, removing,
 * inserting or reordering a line breaks the chain at that line; rewriting
 * the chain from there needs the key. The key is random per run and lives
 * only in corral's memory until the tree is gone, when the end line
 * discloses it ("chain_key"): from then on it proves nothing by itself,
 * but the digest of the last line (the head, printed on stderr) pins every
 * byte before it. A key file (--journal-key) is never disclosed.
 * docs/journal.md has the threat model.
 *
 * The reader never trusts the input: any bytes give a verdict, never a
 * crash (fuzz/verify_fuzz.c).
 */
#include <errno.h>
#include <fcntl.h>
/*
 * SHA-256 from nettle (Debian's libnettle8, which apt itself needs): what
 * the chain uses of a crypto library is one hash, and libcrypto cost every
 * run about 2.5 million instructions of relocation at load, most of a
 * command's start (docs/bench.md, "Starting a command"); nettle's are a
 * tenth of that, and its hash the same speed here (SHA-NI both).
 */
#include <nettle/sha2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "journal.h"
#include "safe_open.h"

#define KEY_MAX 4096

/*
 * HMAC-SHA256 (RFC 2104) on nettle's SHA-256, with the key's inner and
 * outer blocks hashed once: a line costs two SHA-256 finals and two struct
 * copies, no allocation. OpenSSL's EVP_MAC does the same work with a
 * provider dispatch, a context duplication and parameter handling around
 * it, three times the cost per line (docs/bench.md); tests/unit/test_chain.c
 * checks this against OpenSSL's HMAC, an independent implementation.
 */
struct hmac {
	struct sha256_ctx in, out;
};

/* Wiping secrets: a store the compiler may not drop. */
static void wipe(void *p, size_t n)
{
	volatile unsigned char *v = p;
	while (n--)
		*v++ = 0;
}

/* One-shot SHA-256. */
static void sha256(const void *p, size_t n, unsigned char out[32])
{
	struct sha256_ctx c;
	sha256_init(&c);
	sha256_update(&c, n, (const uint8_t *)p);
	sha256_digest(&c, SHA256_DIGEST_SIZE, out);
}

static struct hmac *mac_new(const unsigned char *key, size_t len)
{
	struct hmac *m = malloc(sizeof(*m));
	if (!m)
		return NULL;
	unsigned char k[64] = {0}, pad[64];
	if (len > sizeof(k))
		sha256(key, len, k);
	else
		memcpy(k, key, len);
	for (int i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x36;
	sha256_init(&m->in);
	sha256_update(&m->in, 64, pad);
	for (int i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x5c;
	sha256_init(&m->out);
	sha256_update(&m->out, 64, pad);
	wipe(k, sizeof(k));
	wipe(pad, sizeof(pad));
	return m;
}

static void mac_free(struct hmac *m)
{
	if (m) {
		wipe(m, sizeof(*m));
		free(m);
	}
}

/* HMAC(key, prev || body). */
static void mac_line(const struct hmac *m, const unsigned char prev[32],
		     const char *body, size_t n, unsigned char out[32])
{
	unsigned char inner[32];
	struct sha256_ctx c = m->in;
	sha256_update(&c, 32, prev);
	sha256_update(&c, n, (const uint8_t *)body);
	sha256_digest(&c, SHA256_DIGEST_SIZE, inner);
	c = m->out;
	sha256_update(&c, 32, inner);
	sha256_digest(&c, SHA256_DIGEST_SIZE, out);
}

struct jsum {
	struct sha256_ctx c;
};

struct jsum *jsum_new(void)
{
	struct jsum *s = malloc(sizeof(*s));
	if (s)
		sha256_init(&s->c);
	return s;
}

void jsum_update(struct jsum *s, const void *p, size_t n)
{
	sha256_update(&s->c, n, (const uint8_t *)p);
}

void jsum_free(struct jsum *s)
{
	free(s);
}

static const char hexd[] = "0123456789abcdef";

static void to_hex(const unsigned char *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hexd[b[i] >> 4];
		out[2 * i + 1] = hexd[b[i] & 15];
	}
	out[2 * n] = 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* n bytes from 2n lowercase hex digits; false if any is not one. */
static bool from_hex(const char *h, size_t n, unsigned char *out)
{
	for (size_t i = 0; i < n; i++) {
		int a = hexval(h[2 * i]), b = hexval(h[2 * i + 1]);
		if (a < 0 || b < 0)
			return false;
		out[i] = (unsigned char)(a << 4 | b);
	}
	return true;
}

static int read_key(const char *path, unsigned char **key, size_t *len,
		    char *err, size_t errlen)
{
	/* No link followed, a regular file only (safe_open.c). */
	struct safe_open o = {.flags = SAFE_READ, .what = "journal key"};
	int fd = safe_open(path, &o, err, errlen);
	if (fd < 0)
		return fd;
	unsigned char *b = malloc(KEY_MAX + 1);
	size_t n = 0;
	ssize_t r = 0;
	while (b && n <= KEY_MAX &&
	       (r = read(fd, b + n, KEY_MAX + 1 - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		n += (size_t)r;
	}
	int e = r < 0 ? errno : 0;
	close(fd);
	if (!b || e || n == 0 || n > KEY_MAX) {
		free(b);
		snprintf(err, errlen, "journal key %s: %s", path,
			 !b	  ? "out of memory"
			 : e	  ? strerror(e)
			 : n == 0 ? "empty file"
				  : "longer than 4096 bytes");
		return -EINVAL;
	}
	*key = b;
	*len = n;
	return 0;
}

int chain_init(struct chain *ch, const char *key_path, char *err, size_t errlen)
{
	memset(ch, 0, sizeof(*ch));
	if (key_path) {
		int r = read_key(key_path, &ch->key, &ch->keylen, err, errlen);
		if (r < 0)
			return r;
	} else {
		ch->run_key = true;
		ch->keylen = 32;
		ch->key = malloc(32);
		size_t got = 0;
		while (ch->key && got < 32) {
			ssize_t r = getrandom(ch->key + got, 32 - got, 0);
			if (r < 0 && errno != EINTR)
				break;
			if (r > 0)
				got += (size_t)r;
		}
		if (!ch->key || got < 32) {
			snprintf(err, errlen, "journal: no random key: %s",
				 strerror(errno));
			chain_free(ch);
			return -EIO;
		}
	}
	ch->mac = mac_new(ch->key, ch->keylen);
	if (!ch->mac) {
		snprintf(err, errlen, "journal: out of memory");
		chain_free(ch);
		return -EIO;
	}
	return 0;
}

void chain_free(struct chain *ch)
{
	if (ch->key) {
		explicit_bzero(ch->key, ch->keylen);
		free(ch->key);
	}
	mac_free(ch->mac);
	memset(ch, 0, sizeof(*ch));
}

void chain_seal(struct chain *ch, struct sbuf *b)
{
	sb_puts(b, ",\"n\":");
	sb_long(b, (long)ch->n++);
	unsigned char h[32];
	mac_line(ch->mac, ch->prev, b->p, b->len, h);
	memcpy(ch->prev, h, 32);
	char hex[CHAIN_HEX + 1];
	to_hex(h, 32, hex);
	sb_puts(b, ",\"h\":\"");
	sb_put(b, hex, CHAIN_HEX);
	sb_puts(b, "\"}\n");
}

void chain_rewind(struct chain *ch, const char *hex, unsigned long n)
{
	if (!hex[0] || !from_hex(hex, 32, ch->prev))
		memset(ch->prev, 0, 32);
	ch->n = n;
}

int chain_after(int fd, off_t start, char out[CHAIN_HEX + 1])
{
	/* ,"h":"<64 hex>"}\n: the last 73 bytes of a sealed line */
	const size_t tail = 6 + CHAIN_HEX + 3;
	out[0] = 0;
	if (start < (off_t)tail)
		return -1;
	char p[64], b[6 + CHAIN_HEX + 3];
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	int rfd = open(p, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (rfd < 0)
		return -1;
	ssize_t n = pread(rfd, b, tail, start - (off_t)tail);
	close(rfd);
	unsigned char h[32];
	if (n != (ssize_t)tail || memcmp(b, ",\"h\":\"", 6) ||
	    memcmp(b + tail - 3, "\"}\n", 3) || !from_hex(b + 6, 32, h))
		return -1;
	to_hex(h, 32, out);
	return 0;
}

/* ------------------------------------------------------------ reading */

/* What the tail of a line says: ,"n":N,"h":"<64 hex>"} */
struct tail {
	bool ok;
	unsigned long long n;
	unsigned char h[32];
	size_t body; /* bytes covered by the digest */
	size_t nat;  /* where ,"n": begins */
};

static struct tail parse_tail(const char *l, size_t len)
{
	struct tail t = {0};
	const size_t suf = 6 + CHAIN_HEX + 2; /* ,"h":"...."} */
	if (len < suf + 7 || l[0] != '{' ||
	    memcmp(l + len - suf, ",\"h\":\"", 6) ||
	    memcmp(l + len - 2, "\"}", 2) ||
	    !from_hex(l + len - suf + 6, 32, t.h))
		return t;
	t.body = len - suf;
	/* ,"n":DIGITS just before */
	size_t i = t.body;
	unsigned long long n = 0, mul = 1;
	size_t digits = 0;
	while (i > 0 && l[i - 1] >= '0' && l[i - 1] <= '9' && digits < 19) {
		n += (unsigned long long)(l[i - 1] - '0') * mul;
		mul *= 10;
		digits++;
		i--;
	}
	if (!digits || i < 5 || memcmp(l + i - 5, ",\"n\":", 5) ||
	    (digits > 1 && l[i] == '0'))
		return t;
	t.n = n;
	t.nat = i - 5;
	t.ok = true;
	return t;
}

static bool starts(const char *l, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	return len >= n && !memcmp(l, prefix, n);
}

static bool is_start(const char *l, size_t len)
{
	return starts(l, len, "{\"event\":\"start\",");
}

static bool is_end(const char *l, size_t len)
{
	return starts(l, len, "{\"event\":\"end\",");
}

/* The key an end line discloses: "chain_key":"<64 hex>". */
static bool disclosed_key(const char *l, size_t len, unsigned char key[32])
{
	static const char k[] = "\"chain_key\":\"";
	const char *p = memmem(l, len, k, sizeof(k) - 1);
	if (!p)
		return false;
	p += sizeof(k) - 1;
	if ((size_t)(l + len - p) < CHAIN_HEX + 1 || p[CHAIN_HEX] != '"')
		return false;
	return from_hex(p, 32, key);
}

struct line {
	const char *p;
	size_t len;
	struct tail t;
};

struct lines {
	struct line *v;
	size_t n;
	bool open_end; /* the input does not end with '\n' */
};

static int split(const char *buf, size_t len, struct lines *ls)
{
	size_t cap = 0;
	ls->v = NULL;
	ls->n = 0;
	ls->open_end = len && buf[len - 1] != '\n';
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(buf + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - buf) : len;
		if (GROW(ls->v, cap, ls->n + 1)) {
			free(ls->v);
			ls->v = NULL;
			return -ENOMEM;
		}
		struct line *l = &ls->v[ls->n++];
		l->p = buf + i;
		l->len = e - i;
		l->t = parse_tail(l->p, l->len);
		i = e + 1;
	}
	return 0;
}

struct checker {
	struct corral_journal_check *chk;
	unsigned run;
};

static const char *verdict_words(enum corral_line_verdict v)
{
	switch (v) {
	case CORRAL_LINE_OK:
		return "intact";
	case CORRAL_LINE_CHANGED:
		return "changed (its digest does not match its bytes)";
	case CORRAL_LINE_INSERTED:
		return "inserted (not part of the chain; the next line "
		       "follows the one before it)";
	case CORRAL_LINE_REMOVED_BEFORE:
		return "lines were removed before it (its sequence number "
		       "jumps)";
	case CORRAL_LINE_REORDERED:
		return "out of order (its sequence number is not the next)";
	case CORRAL_LINE_MALFORMED:
		return "not a journal line (no \"n\"/\"h\" tail)";
	case CORRAL_LINE_AFTER_END:
		return "appended after the run's end line";
	case CORRAL_LINE_UNCHECKED:
		return "not checked (no key)";
	case CORRAL_LINE_MISPLACED:
		return "moved: its run was written at another place in the "
		       "file (a run was prepended, inserted or removed before "
		       "it)";
	}
	return "?";
}

const char *corral_line_verdict_name(enum corral_line_verdict v)
{
	static const char *const names[] = {
		"ok",	     "changed",	  "inserted",  "removed-before",
		"reordered", "malformed", "after-end", "unchecked",
		"misplaced",
	};
	return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : "?";
}

static void verdict(struct checker *k, size_t idx, const struct line *l,
		    enum corral_line_verdict v)
{
	struct corral_journal_check *c = k->chk;
	if (v != CORRAL_LINE_OK && v != CORRAL_LINE_UNCHECKED) {
		c->bad_lines++;
		if (!c->first_bad) {
			c->first_bad = idx + 1;
			c->first_verdict = v;
			snprintf(c->why, sizeof(c->why), "line %zu: %s",
				 idx + 1, verdict_words(v));
		}
	}
	if (c->on_line) {
		struct corral_journal_line cl = {
			.lineno = idx + 1,
			.run = k->run,
			.seq = l->t.ok ? (long long)l->t.n : -1,
			.verdict = v,
			.text = l->p,
			.len = l->len,
		};
		c->on_line(&cl, c->arg);
	}
}

static void problem(struct corral_journal_check *c, size_t lineno,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void problem(struct corral_journal_check *c, size_t lineno,
		    const char *fmt, ...)
{
	if (c->first_bad)
		return;
	c->first_bad = lineno;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
}

static bool mac_ok(const struct hmac *mac, const unsigned char prev[32],
		   const struct line *l)
{
	unsigned char h[32];
	if (!l->t.ok)
		return false;
	mac_line(mac, prev, l->p, l->t.body, h);
	return !memcmp(h, l->t.h, 32);
}

/* Is there a line with sequence number n in [from, to)? */
static bool seq_later(const struct lines *ls, size_t from, size_t to,
		      unsigned long long n)
{
	for (size_t i = from; i < to; i++)
		if (ls->v[i].t.ok && ls->v[i].t.n == n)
			return true;
	return false;
}

/*
 * One run: lines [a, b). prev is the digest of the last line accepted
 * (zeros before the start line); alt the digest a changed line should have
 * had, tried too, so that one edited line is reported once.
 */
static void check_run(struct checker *k, const struct lines *ls, size_t a,
		      size_t b, const unsigned char *key, size_t keylen,
		      const unsigned char seed[32], const char *misplaced)
{
	struct corral_journal_check *c = k->chk;
	const struct line *v = ls->v;
	if (!key) {
		for (size_t i = a; i < b; i++)
			verdict(k, i, &v[i],
				v[i].t.ok ? CORRAL_LINE_UNCHECKED
					  : CORRAL_LINE_MALFORMED);
		return;
	}
	struct hmac *mac = mac_new(key, keylen);
	if (!mac) {
		problem(c, a + 1, "out of memory");
		return;
	}
	unsigned char prev[32], alt[32];
	memcpy(prev, seed, 32);
	bool have_alt = false, ended = false;
	unsigned long long want = 0;
	for (size_t i = a; i < b; i++) {
		const struct line *l = &v[i];
		if (ended) {
			verdict(k, i, l, CORRAL_LINE_AFTER_END);
			continue;
		}
		if (mac_ok(mac, prev, l) && l->t.n == want && i == a &&
		    misplaced) {
			/* sealed as written, but not where it was written */
			bool first = !c->first_bad;
			verdict(k, i, l, CORRAL_LINE_MISPLACED);
			if (first)
				snprintf(c->why, sizeof(c->why),
					 "line %zu: moved: %s", i + 1,
					 misplaced);
		} else if (mac_ok(mac, prev, l) && l->t.n == want) {
			verdict(k, i, l, CORRAL_LINE_OK);
		} else if (have_alt && mac_ok(mac, alt, l) && l->t.n == want) {
			/* follows the line before it, as that should have been
			 */
			memcpy(prev, alt, 32);
			verdict(k, i, l, CORRAL_LINE_OK);
		} else {
			enum corral_line_verdict why;
			bool next_follows =
				i + 1 < b && mac_ok(mac, prev, &v[i + 1]);
			if (!l->t.ok)
				why = next_follows ? CORRAL_LINE_INSERTED
						   : CORRAL_LINE_MALFORMED;
			else if (l->t.n > want)
				why = seq_later(ls, i + 1, b, want)
					      ? CORRAL_LINE_REORDERED
					      : CORRAL_LINE_REMOVED_BEFORE;
			else if (l->t.n < want)
				why = next_follows ? CORRAL_LINE_INSERTED
						   : CORRAL_LINE_REORDERED;
			else
				why = next_follows ? CORRAL_LINE_INSERTED
						   : CORRAL_LINE_CHANGED;
			verdict(k, i, l, why);
			if (why == CORRAL_LINE_INSERTED)
				continue; /* prev stays: the next line is
					     checked */
			/* Go on from this line as it stands. */
			have_alt = false;
			if (l->t.ok) {
				mac_line(mac, prev, l->p, l->t.body, alt);
				have_alt = true;
				memcpy(prev, l->t.h, 32);
				want = l->t.n + 1;
			}
			if (l->t.ok && is_end(l->p, l->len))
				ended = true;
			continue;
		}
		have_alt = false;
		memcpy(prev, l->t.h, 32);
		want = l->t.n + 1;
		if (is_end(l->p, l->len))
			ended = true;
	}
	mac_free(mac);
}

/*
 * Does a disclosed key verify the run's first line, or the second against
 * the first as it stands (when the first was edited)? If neither, it is
 * the key that is wrong.
 */
static bool key_fits(const struct lines *ls, size_t a, size_t b,
		     const unsigned char key[32], const unsigned char seed[32])
{
	struct hmac *mac = mac_new(key, 32);
	if (!mac)
		return false;
	bool ok = mac_ok(mac, seed, &ls->v[a]) ||
		  (a + 1 < b && ls->v[a].t.ok &&
		   mac_ok(mac, ls->v[a].t.h, &ls->v[a + 1]));
	mac_free(mac);
	return ok;
}

static void head_of(const struct line *l, char out[CHAIN_HEX + 1])
{
	if (l->t.ok)
		to_hex(l->t.h, 32, out);
	else
		out[0] = 0;
}

/*
 * Where a start line says its run was written: ,"offset":N and, when the
 * file held a sealed line before, ,"after":"<hex>", the last keys before
 * ,"n": (journal.c, put_start()). A JSON string cannot hold these bytes
 * unescaped, so a command line cannot fake them.
 */
struct place {
	int schema; /* 0: not said */
	bool has_offset, has_after;
	unsigned long long offset;
	unsigned char after[32];
};

static struct place parse_place(const struct line *l)
{
	struct place pl = {0};
	if (!l->t.ok)
		return pl;
	static const char sk[] = ",\"schema\":";
	const char *sp = memmem(l->p, l->t.nat, sk, sizeof(sk) - 1);
	if (sp) {
		sp += sizeof(sk) - 1;
		for (int d = 0;
		     d < 6 && sp < l->p + l->t.nat && *sp >= '0' && *sp <= '9';
		     d++, sp++)
			pl.schema = pl.schema * 10 + (*sp - '0');
	}
	size_t e = l->t.nat;
	const size_t alen = 10 + CHAIN_HEX + 1; /* ,"after":"<hex>" */
	if (e >= alen && !memcmp(l->p + e - alen, ",\"after\":\"", 10) &&
	    l->p[e - 1] == '"' &&
	    from_hex(l->p + e - alen + 10, 32, pl.after)) {
		pl.has_after = true;
		e -= alen;
	}
	size_t i = e, digits = 0;
	unsigned long long n = 0, mul = 1;
	while (i > 0 && l->p[i - 1] >= '0' && l->p[i - 1] <= '9' &&
	       digits < 19) {
		n += (unsigned long long)(l->p[i - 1] - '0') * mul;
		mul *= 10;
		digits++;
		i--;
	}
	if (digits && i >= 10 && !memcmp(l->p + i - 10, ",\"offset\":", 10)) {
		pl.has_offset = true;
		pl.offset = n;
	} else {
		pl.has_after = false; /* "after" only ever follows "offset" */
	}
	return pl;
}

/* What the verifier learnt of each run, for --head and the report. */
struct run_info {
	size_t a, b; /* lines [a, b) */
	bool linked; /* its start line names the line before it, which
			is there: the head of a later run covers it */
};

/*
 * Is the run [a, b) where it was written? NULL, or why not (into why).
 * *linked: it names the line before it and that line is there.
 */
static const char *placement(const char *buf, const struct lines *ls, size_t a,
			     const struct place *pl, bool *linked, char *why,
			     size_t whylen)
{
	const struct line *l = &ls->v[a];
	unsigned long long at = (unsigned long long)(l->p - buf);
	*linked = false;
	if (!l->t.ok || !is_start(l->p, l->len))
		return NULL; /* the chain says what is wrong */
	/*
	 * A run written after bytes that were not a sealed line (offset > 0,
	 * no "after": `exec >>app.log` then -j /dev/stdout) is also taken at
	 * the start of a file: cut out of the one it was written to. Nothing
	 * of a journal can have been taken from before it.
	 */
	bool cut_out = at == 0 && !pl->has_after;
	if (pl->has_offset && pl->offset != at && !cut_out) {
		snprintf(why, whylen,
			 "its run was written at byte %llu of the file and "
			 "begins at byte %llu (a run was prepended, inserted "
			 "or removed before it, or it was moved)",
			 pl->offset, at);
		return why;
	}
	if (pl->has_after) {
		const struct line *p = a ? &ls->v[a - 1] : NULL;
		if (!p || !p->t.ok || memcmp(p->t.h, pl->after, 32)) {
			snprintf(why, whylen,
				 "its run was written after a line whose "
				 "digest is not the line before it (the runs "
				 "before it were changed, or it was moved)");
			return why;
		}
		*linked = true;
		return NULL;
	}
	if (!pl->has_offset && pl->schema >= 4 && a > 0) {
		snprintf(why, whylen,
			 "its run was written to a pipe or socket (no place "
			 "recorded) and can only be a file's first run");
		return why;
	}
	return NULL;
}

/* A run's end line says corral found its journal changed. */
static bool said_not_intact(const struct lines *ls, size_t a, size_t b,
			    size_t *at)
{
	static const char k[] = ",\"journal_intact\":false";
	for (size_t i = b; i-- > a;)
		if (ls->v[i].t.ok && is_end(ls->v[i].p, ls->v[i].len)) {
			*at = i;
			return memmem(ls->v[i].p, ls->v[i].t.nat, k,
				      sizeof(k) - 1) != NULL;
		}
	return false;
}

/* The verdict starts from nothing: every out field of c cleared. */
static void check_reset(struct corral_journal_check *c)
{
	c->intact = false;
	c->keyed = true;
	c->lines = c->runs = c->bad_lines = 0;
	c->first_bad = 0;
	c->first_verdict = CORRAL_LINE_OK;
	c->truncated = c->head_matched = false;
	c->last_h[0] = c->why[0] = 0;
	c->head_run = c->proven_run = c->end_run = 0;
	c->head_line = c->proven_first = c->end_first = c->end_line = 0;
	c->not_intact_runs = c->misplaced_runs = 0;
}

/*
 * The key of the run [a, b): the caller's, else the one its last end line
 * discloses (into dk; *at: that line). NULL when there is none.
 */
static const unsigned char *run_key(const struct corral_journal_check *c,
				    const struct lines *ls, size_t a, size_t b,
				    unsigned char dk[32], size_t *keylen,
				    size_t *at)
{
	*keylen = c->keylen;
	if (c->key)
		return c->key;
	for (size_t i = b; i-- > a;)
		if (ls->v[i].t.ok && is_end(ls->v[i].p, ls->v[i].len) &&
		    disclosed_key(ls->v[i].p, ls->v[i].len, dk)) {
			*keylen = 32;
			*at = i;
			return dk;
		}
	return NULL;
}

/* One run, lines [a, b): its place, its key, its chain, its end. */
static void check_one_run(struct checker *k, const char *buf,
			  const struct lines *ls, struct run_info *ri)
{
	struct corral_journal_check *c = k->chk;
	size_t a = ri->a, b = ri->b;
	const struct line *last = &ls->v[b - 1];
	bool ends = last->t.ok && is_end(last->p, last->len) &&
		    !(b == ls->n && ls->open_end);
	/* The digest the start line chains to, and its place. */
	struct place pl = parse_place(&ls->v[a]);
	unsigned char seed[32] = {0};
	if (pl.has_after)
		memcpy(seed, pl.after, 32);
	char mwhy[200];
	const char *misplaced =
		placement(buf, ls, a, &pl, &ri->linked, mwhy, sizeof(mwhy));
	unsigned char dk[32];
	size_t keylen, kl = 0;
	const unsigned char *key = run_key(c, ls, a, b, dk, &keylen, &kl);
	if (key == dk && !key_fits(ls, a, b, dk, seed)) {
		/* The disclosing line itself was changed. */
		for (size_t i = a; i < b; i++)
			verdict(k, i, &ls->v[i],
				i == kl ? CORRAL_LINE_CHANGED
					: CORRAL_LINE_UNCHECKED);
		return;
	}
	if (!key)
		c->keyed = false;
	if (!is_start(ls->v[a].p, ls->v[a].len) && ls->v[a].t.ok && key)
		; /* an edited start line: its digest says so */
	else if (!is_start(ls->v[a].p, ls->v[a].len) && !key)
		problem(c, a + 1,
			"line %zu: a run that does not begin with a start line",
			a + 1);
	if (misplaced) {
		c->misplaced_runs++;
		ri->linked = false;
	}
	if (misplaced && !key)
		problem(c, a + 1, "line %zu: moved: %s", a + 1, misplaced);
	check_run(k, ls, a, b, key, keylen, seed, misplaced);
	size_t el;
	if (said_not_intact(ls, a, b, &el)) {
		/* corral read its file back and found it changed: whatever
		 * the chain says now, it is not intact */
		c->not_intact_runs++;
		problem(c, el + 1,
			"line %zu: corral found this run's journal changed "
			"while it ran (its end line says journal_intact:false)",
			el + 1);
	}
	if (!ends) {
		c->truncated = true;
		problem(c, b + 1,
			"line %zu: the journal ends without an end line "
			"(truncated%s)",
			b + (ls->open_end && b == ls->n ? 0 : 1),
			ls->open_end && b == ls->n ? " mid-line" : "");
	}
}

/* The run the last end line belongs to: what a report shows. */
static void find_end_run(struct corral_journal_check *c, const struct lines *ls,
			 const struct run_info *runs)
{
	for (size_t r = c->runs; r-- > 0 && !c->end_run;)
		for (size_t i = runs[r].b; i-- > runs[r].a;)
			if (ls->v[i].t.ok && is_end(ls->v[i].p, ls->v[i].len)) {
				c->end_run = (unsigned)r + 1;
				c->end_first = runs[r].a + 1;
				c->end_line = i + 1;
				break;
			}
}

/*
 * The head recorded elsewhere (want): is it the last line's, where is it,
 * and which lines does it prove (its run and the runs chained before it).
 */
static void place_head(struct corral_journal_check *c, const struct lines *ls,
		       const struct run_info *runs,
		       const unsigned char want[32])
{
	const struct line *last = &ls->v[ls->n - 1];
	c->head_matched = last->t.ok && !memcmp(last->t.h, want, 32);
	size_t at = 0;
	for (size_t i = ls->n; i-- > 0 && !at;)
		if (ls->v[i].t.ok && !memcmp(ls->v[i].t.h, want, 32))
			at = i + 1;
	if (at) {
		size_t r = 0;
		while (r + 1 < c->runs && runs[r + 1].a < at)
			r++;
		c->head_run = (unsigned)r + 1;
		c->head_line = at;
		/* Back through the runs whose start line names the line
		 * before it: the head covers those too. */
		while (r > 0 && runs[r].linked)
			r--;
		c->proven_run = (unsigned)r + 1;
		c->proven_first = runs[r].a + 1;
	}
	if (!c->head_matched && at)
		problem(c, at + 1,
			"line %zu: the recorded head is line %zu's: lines "
			"after it were appended",
			at + 1, at);
	else if (!c->head_matched)
		problem(c, ls->n,
			"the recorded head is not in the journal: its end was "
			"removed, or it was rewritten");
	else if (c->proven_first > 1)
		problem(c, 1,
			"lines 1 to %zu are not covered by the recorded head: "
			"run %u's start line does not name the line before it",
			c->proven_first - 1, c->proven_run);
}

int journal_verify_core(const char *buf, size_t len,
			struct corral_journal_check *c)
{
	check_reset(c);
	if (c->key && (!c->keylen || c->keylen > KEY_MAX))
		return -EINVAL;
	unsigned char want_head[32];
	if (c->head &&
	    (strlen(c->head) != CHAIN_HEX || !from_hex(c->head, 32, want_head)))
		return -EINVAL;
	struct lines ls;
	if (split(buf, len, &ls) < 0)
		return -ENOMEM;
	size_t sealed = 0;
	for (size_t i = 0; i < ls.n; i++)
		sealed += ls.v[i].t.ok;
	if (!sealed) {
		free(ls.v);
		snprintf(c->why, sizeof(c->why),
			 ls.n ? "not a corral journal (no line carries a "
				"digest)"
			      : "empty");
		return -EINVAL;
	}
	c->lines = ls.n;
	struct checker k = {.chk = c};
	struct run_info *runs = NULL;
	size_t rcap = 0;
	/* Runs begin at start lines. */
	for (size_t a = 0, b; a < ls.n; a = b) {
		b = a + 1;
		while (b < ls.n && !is_start(ls.v[b].p, ls.v[b].len))
			b++;
		k.run = (unsigned)++c->runs;
		if (GROW(runs, rcap, c->runs)) {
			free(runs);
			free(ls.v);
			return -ENOMEM;
		}
		runs[c->runs - 1] = (struct run_info){.a = a, .b = b};
		check_one_run(&k, buf, &ls, &runs[c->runs - 1]);
	}
	find_end_run(c, &ls, runs);
	head_of(&ls.v[ls.n - 1], c->last_h);
	if (c->head)
		place_head(c, &ls, runs, want_head);
	c->intact = !c->first_bad && c->keyed && (!c->head || c->head_matched);
	free(runs);
	free(ls.v);
	return 0;
}

int chain_check_own(const struct chain *ch, const struct jsink *s, char *msg,
		    size_t msglen)
{
	msg[0] = 0;
	if (s->fd < 0 || s->kind != JS_FILE)
		return -1;
	struct stat own, now;
	if (fstat(s->fd, &own) < 0)
		return -1;
	if (s->path && (stat(s->path, &now) < 0 || now.st_dev != own.st_dev ||
			now.st_ino != own.st_ino)) {
		snprintf(msg, msglen, "the file at %s was removed or replaced",
			 s->path);
		return 0;
	}
	if (own.st_size < s->start) {
		snprintf(msg, msglen, "the file was truncated");
		return 0;
	}
	char p[64];
	snprintf(p, sizeof(p), "/proc/self/fd/%d", s->fd);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t len = (size_t)(own.st_size - s->start);
	char *buf = len ? mmap(NULL, len + (size_t)(s->start % 4096), PROT_READ,
			       MAP_PRIVATE, fd, s->start - s->start % 4096)
			: NULL;
	close(fd);
	if (buf == MAP_FAILED)
		return -1;
	const char *b = buf ? buf + s->start % 4096 : "";
	struct lines ls;
	int r = 0;
	if (s->sum && len == s->wbytes) {
		/* The usual case: the same bytes as went out, one hash. */
		unsigned char want[32], got[32];
		struct sha256_ctx c = s->sum->c;
		sha256_digest(&c, SHA256_DIGEST_SIZE, want);
		sha256(b, len, got);
		if (!memcmp(want, got, 32)) {
			if (buf)
				munmap(buf, len + (size_t)(s->start % 4096));
			return 1;
		}
	}
	r = split(b, len, &ls);
	if (r == 0) {
		/* The start line follows the line it was written after. */
		unsigned char prev[32] = {0};
		if (s->after[0])
			from_hex(s->after, 32, prev);
		size_t bad = 0;
		for (size_t i = 0; i < ls.n && !bad; i++) {
			const struct line *l = &ls.v[i];
			if (!mac_ok(ch->mac, prev, l) || l->t.n != i)
				bad = i + 1;
			memcpy(prev, l->t.h, 32);
		}
		bool ok = false;
		if (bad)
			snprintf(msg, msglen,
				 "line %zu of this run is not the line corral "
				 "wrote",
				 bad);
		else if (ls.n > s->written || ls.open_end)
			snprintf(msg, msglen,
				 "bytes were added (%zu lines, %lu written)",
				 ls.n, s->written);
		else if (ls.n < s->written)
			snprintf(msg, msglen,
				 "lines were removed (%zu lines, %lu written)",
				 ls.n, s->written);
		else
			ok = true;
		r = ok ? 1 : 0;
		free(ls.v);
	} else {
		r = -1;
	}
	if (buf)
		munmap(buf, len + (size_t)(s->start % 4096));
	return r;
}
