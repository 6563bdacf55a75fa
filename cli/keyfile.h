/* keyfile.h - the journal key file, as `verify` and `report` read it. */
#ifndef CORRAL_CLI_KEYFILE_H
#define CORRAL_CLI_KEYFILE_H

#include <stddef.h>

/* At most this many bytes; callers give a buffer of KEYFILE_MAX + 1. */
#define KEYFILE_MAX 4096

/*
 * Read the whole key file at path into key (KEYFILE_MAX + 1 bytes) and set
 * *len. On failure print "corral: <cmd>: key PATH: why" and return -1.
 */
int keyfile_read(const char *cmd, const char *path, unsigned char *key,
		 size_t *len);

#endif
