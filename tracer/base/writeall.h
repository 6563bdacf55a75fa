/* writeall.h - write a whole buffer to a descriptor (writeall.c). */
#ifndef CORRAL_WRITEALL_H
#define CORRAL_WRITEALL_H

#include <stddef.h>

/*
 * Write all len bytes of buf to fd, again after EINTR and after a short
 * write. 0, or -errno of the write that failed (-EIO for one that wrote
 * nothing): on a non-blocking descriptor -EAGAIN says that the rest did
 * not fit now.
 */
int write_all(int fd, const void *buf, size_t len);

/* The same through send(2) with flags (MSG_DONTWAIT, MSG_NOSIGNAL). */
int send_all(int fd, const void *buf, size_t len, int flags);

#endif
