/*
 * config.c - the supervisor's caller-allocated structs (docs/api.md, "The
 * ABI scheme"): the config's defaults and its copy into the library's own
 * (corral_config_init(), corral_new()), and the result handed out
 * (corral_get_result()), each through abi.c's size rules.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "abi.h"
#include "config.h"
#include "internal.h"

/* The defaults (corral.h), under every caller's config. */
static void config_set_defaults(struct corral_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->journal_fd = -1;
	cfg->kill_after = 2.0;
	cfg->kill_wait = 10.0;
	cfg->watch_parent = true;
	cfg->handle_signals = true;
	cfg->stack_budget = 5.0;
	cfg->stacks = CORRAL_STACKS_TIMEOUT | CORRAL_STACKS_SIGNAL |
		      CORRAL_STACKS_CRASH | CORRAL_STACKS_ESCAPE;
}

int corral_config_defaults(struct corral_config *cfg)
{
	struct corral_config full;
	config_set_defaults(&full);
	full.size = sizeof(full);
#ifdef CORRAL_TEST_GROW
	full.test_grow_knob = 7;
#endif
	if (cfg->size < sizeof(size_t))
		return -EINVAL;
	/* abi_out() keeps cfg->size and zeroes what we do not know. */
	return abi_out(cfg, &full, sizeof(full));
}

int config_import(const struct corral_config *in, struct corral_config *out,
		  char *err, size_t errlen)
{
	config_set_defaults(out);
#ifdef CORRAL_TEST_GROW
	out->test_grow_knob = 7;
#endif
	int r = abi_in(out, sizeof(*out), in);
	if (r == -EINVAL)
		snprintf(err, errlen,
			 "struct corral_config: size %zu is not valid (use "
			 "corral_config_init())",
			 in->size);
	else if (r == -E2BIG)
		snprintf(err, errlen,
			 "struct corral_config: settings this corral (%s) does "
			 "not know (the program was built with a newer "
			 "corral.h)",
			 CORRAL_VERSION);
#ifdef CORRAL_TEST_GROW
	/* A field an older caller lacks must have its default. */
	if (!r && in->size <= offsetof(struct corral_config, test_grow_knob) &&
	    out->test_grow_knob != 7) {
		snprintf(err, errlen, "test_grow_knob is %d, not 7",
			 out->test_grow_knob);
		r = -EPROTO;
	}
#endif
	return r;
}

int corral_get_result(const struct corral *c, struct corral_result *r)
{
	struct corral_result full = c->result.res;
	full.size = sizeof(full);
#ifdef CORRAL_TEST_GROW
	full.test_grow_out = (unsigned long)c->cfg.test_grow_knob;
#endif
	return abi_out(r, &full, sizeof(full));
}
