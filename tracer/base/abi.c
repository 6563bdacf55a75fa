/*
 * abi.c - the version, and the caller-allocated structs across versions.
 * Both libraries have it (libcorral-journal too: it knows nothing of the
 * supervisor); config.c applies it to the config and the result.
 *
 * The structs a caller allocates start with the size the caller was built
 * with (libbpf's opts do the same). An older caller
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

const char *corral_version(void)
{
	return CORRAL_VERSION;
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
