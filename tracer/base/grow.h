/*
 * grow.h - room in a growable array (grow.c): the one doubling realloc
 * behind the library's vectors, lists and byte buffers.
 */
#ifndef CORRAL_GROW_H
#define CORRAL_GROW_H

#include <stddef.h>

/*
 * Make the array at *arrp (the address of any T *: GROW() passes it) hold
 * at least need elements of size bytes. When *cap is smaller, the array
 * is reallocated to the largest of need, twice *cap and 16 elements, and
 * *cap says so. 0, or -ENOMEM (an overflowing need * size included) with
 * the array and *cap left as they were.
 */
int grow(void *arrp, size_t *cap, size_t need, size_t size);

/* arr (a T *) with capacity cap (a size_t) holds at least need elements:
 * GROW(v, cap, n + 1) before v[n++] = x. 0 or -ENOMEM. */
#define GROW(arr, cap, need)                                                   \
	((need) <= (cap) ? 0 : grow(&(arr), &(cap), (need), sizeof(*(arr))))

#endif
