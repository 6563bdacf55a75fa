/* result.h - `corral run --result FILE` (result.c). */
#ifndef CORRAL_CLI_RESULT_H
#define CORRAL_CLI_RESULT_H

#include <stddef.h>
#include <stdio.h>

#include "corral.h"

/*
 * Write the run's result as one JSON object to path, atomically (a new
 * file in its directory, renamed over it). code: corral's exit status.
 * 0, or -errno with err saying why.
 */
int result_write(const char *path, struct corral *c,
		 const struct corral_result *r, const struct corral_config *cfg,
		 int code, char *err, size_t errlen);

/* s as a JSON string (NULL: null); bytes that are not UTF-8 as \udcXX. */
void result_json_str(FILE *f, const char *s);

#endif
