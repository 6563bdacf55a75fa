/*
 * abi.h - the structs the caller allocates, whatever corral.h it was built
 * with (docs/api.md: each starts with its size; fields are only appended).
 */
#ifndef CORRAL_ABI_H
#define CORRAL_ABI_H

#include <stddef.h>

#include "corral/common.h"

/*
 * Copy a caller's struct whose first member is its size into the
 * library's own (own bytes, already holding the defaults): the caller's
 * bytes win where both have them. -EINVAL when the size cannot hold the
 * size field, -E2BIG when the caller set bytes past what we know.
 */
int abi_in(void *own, size_t own_size, const void *user);
/* Fill the caller's struct from ours: its size is kept, bytes past what
 * we know are zeroed. -EINVAL as abi_in(). */
int abi_out(void *user, const void *own, size_t own_size);

#endif
