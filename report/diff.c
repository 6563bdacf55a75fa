/*
 * diff.c - corral_diff_*: put runs side by side (docs/diff.md). Two runs:
 * match their processes (diff_match.c) and say what differs
 * (diff_find.c); more (or CORRAL_DIFF_GROUP): group them by result and
 * say what the failing ones share (diff_group.c). The writers are
 * diff_out.c, diff_json.c and diff_html.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

#define DEFAULT_FACTOR 2.0
#define DEFAULT_FLOOR  0.1 /* seconds */

static void options(struct corral_diff *d, const struct corral_diff_options *o)
{
	d->factor = o->factor > 1 ? o->factor : DEFAULT_FACTOR;
	d->floor = o->floor > 0 ? o->floor : o->floor < 0 ? 0 : DEFAULT_FLOOR;
}

static int build(struct corral_diff *d, struct corral_report *const *runs,
		 const struct corral_diff_options *o, char *err,
		 size_t errlen)
{
	int e = dn_init(&d->norm, o->normalize,
			!(o->flags & CORRAL_DIFF_NO_DEFAULTS), err, errlen);
	if (e)
		return e;
	d->runs = calloc(d->nruns, sizeof(*d->runs));
	if (!d->runs)
		return -ENOMEM;
	for (size_t i = 0; i < d->nruns; i++) {
		d->runs[i].m = runs[i];
		e = dn_run(&d->norm, &d->runs[i]);
		if (e)
			return e;
	}
	return d->group ? dg_group(d) : df_find(d);
}

int corral_diff_new(struct corral_report *const *runs, size_t n,
		    const struct corral_diff_options *opts,
		    struct corral_diff **out, char *errbuf, size_t errlen)
{
	char dummy[8];
	if (!errbuf) {
		errbuf = dummy;
		errlen = sizeof(dummy);
	}
	*errbuf = 0;
	*out = NULL;
	/* a caller built against an older, shorter struct: the rest is 0 */
	struct corral_diff_options o;
	corral_diff_options_init(&o);
	if (opts)
		memcpy(&o, opts, opts->size < sizeof(o) ? opts->size : sizeof(o));
	if (n < 2 || !runs) {
		snprintf(errbuf, errlen, "a diff needs two runs or more");
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++)
		if (!runs[i]) {
			snprintf(errbuf, errlen, "run %zu is missing", i + 1);
			return -EINVAL;
		}
	struct corral_diff *d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	options(d, &o);
	d->nruns = n;
	d->group = n > 2 || (o.flags & CORRAL_DIFF_GROUP);
	int e = build(d, runs, &o, errbuf, errlen);
	if (e) {
		if (e == -ENOMEM && !*errbuf)
			snprintf(errbuf, errlen, "out of memory");
		corral_diff_free(d);
		return e;
	}
	*out = d;
	return 0;
}

int corral_diff_differs(const struct corral_diff *d)
{
	if (!d)
		return 0;
	if (d->group)
		return d->g.npass && d->g.nfail;
	return d->only_a.n || d->only_b.n || d->changed.n || d->slower.n ||
	       d->faster.n || d->nending;
}

int corral_diff_write(const struct corral_diff *d, FILE *f,
		      enum corral_report_format fmt)
{
	if (!d || !f)
		return -EINVAL;
	if (fmt == CORRAL_REPORT_JSON)
		d->group ? dout_group_json(d, f) : dout_json(d, f);
	else
		d->group ? dout_group_text(d, f, fmt) : dout_text(d, f, fmt);
	return ferror(f) ? -EIO : 0;
}

void corral_diff_free(struct corral_diff *d)
{
	if (!d)
		return;
	for (size_t i = 0; d->runs && i < d->nruns; i++)
		dr_free(&d->runs[i]);
	free(d->runs);
	dn_free(&d->norm);
	free(d->only_a.v);
	free(d->only_b.v);
	free(d->changed.v);
	free(d->slower.v);
	free(d->faster.v);
	free(d->g.v);
	free(d);
}
