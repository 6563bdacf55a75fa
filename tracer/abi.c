/*
 * abi.c - the version, and the caller-allocated structs across versions.
 *
 * struct corral_config, corral_result and corral_probe start with the size
 * the caller was built with (libbpf's opts do the same). An older caller
 * has a smaller struct: the library reads or writes only that many bytes,
 * and the fields the caller does not have keep their defaults. A newer
 * caller has a larger one: what lies past the library's struct must be
 * zero (the caller left those fields at their defaults), or the library
 * refuses with -E2BIG rather than silently ignoring a setting.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "abi.h"
#include "internal.h"

const char *corral_version(void)
{
	return CORRAL_VERSION;
}

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

static size_t user_size(const void *user)
{
	size_t size;
	memcpy(&size, user, sizeof(size));
	return size;
}

int abi_in(void *own, size_t own_size, const void *user)
{
	size_t size = user_size(user);
	if (size < sizeof(size_t))
		return -EINVAL;
	if (size > own_size) {
		const unsigned char *extra = (const unsigned char *)user;
		for (size_t i = own_size; i < size; i++)
			if (extra[i])
				return -E2BIG;
		size = own_size;
	}
	memcpy((char *)own + sizeof(size_t),
	       (const char *)user + sizeof(size_t), size - sizeof(size_t));
	memcpy(own, &own_size, sizeof(size_t));
	return 0;
}

int abi_out(void *user, const void *own, size_t own_size)
{
	size_t size = user_size(user);
	if (size < sizeof(size_t))
		return -EINVAL;
	size_t n = size < own_size ? size : own_size;
	memcpy((char *)user + sizeof(size_t),
	       (const char *)own + sizeof(size_t), n - sizeof(size_t));
	if (size > own_size)
		memset((char *)user + own_size, 0, size - own_size);
	return 0;
}

int corral_config_defaults(struct corral_config *cfg)
{
	struct corral_config full;
	config_set_defaults(&full);
	full.size = sizeof(full);
#ifdef CORRAL_TEST_GROW
	full.test_grow_knob = 7;
#endif
	size_t size = user_size(cfg);
	if (size < sizeof(size_t))
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
	struct corral_result full = c->res;
	full.size = sizeof(full);
#ifdef CORRAL_TEST_GROW
	full.test_grow_out = (unsigned long)c->cfg.test_grow_knob;
#endif
	return abi_out(r, &full, sizeof(full));
}
