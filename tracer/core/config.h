/*
 * config.h - the supervisor's config as the caller gave it, whatever
 * corral.h it was built with (docs/api.md, "The ABI scheme").
 */
#ifndef CORRAL_CONFIG_H
#define CORRAL_CONFIG_H

#include <stddef.h>

#include "corral.h"

/* A caller's config into the library's, with a message on error. */
int config_import(const struct corral_config *in, struct corral_config *out,
		  char *err, size_t errlen);

#endif
