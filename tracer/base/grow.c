/*
 * grow.c - the doubling realloc (grow.h). A leaf: the sandbox's argument
 * lists, the report's model and reader, the JSON buffer, the journal
 * sink's queue, the digest chain's line list, the journal checker and the
 * ending's tid lists use it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

int grow(void *arrp, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	if (!size)
		return -EINVAL;
	size_t max = SIZE_MAX / size;
	if (need > max)
		return -ENOMEM;
	size_t n = *cap <= max / 2 ? *cap * 2 : max;
	if (n < need)
		n = need;
	if (n < 16 && max >= 16)
		n = 16;
	/* arrp is a T **: the pointer is copied in and out as bytes, so that
	 * no T * is ever read through a void * lvalue */
	void *old;
	memcpy(&old, arrp, sizeof(old));
	void *p = realloc(old, n * size);
	if (!p)
		return -ENOMEM;
	memcpy(arrp, &p, sizeof(p));
	*cap = n;
	return 0;
}
