/*
 * fuse.h - the FUSE connections served by members, and their abort.
 *
 * A task waiting for an answer its own FUSE server already read waits in
 * the kernel uninterruptibly (fs/fuse/dev.c, request_wait_answer()), SIGKILL
 * or not, for as long as the server's /dev/fuse descriptor is open: when
 * that descriptor is in the task's own file table, for ever. Only an answer
 * or an abort of the connection (/sys/fs/fuse/connections/N/abort) ends it.
 * Kill-all calls these when --kill-wait runs out (ending.c).
 */
#ifndef CORRAL_FUSE_H
#define CORRAL_FUSE_H

#include <sys/types.h>

/*
 * The FUSE connection numbers of the /dev/fuse descriptors in tid's file
 * table, read from /proc/tid/fdinfo ("fuse_connection:", Linux 6.18 has it;
 * a kernel without it gives none): at most max into conns. Their count, or
 * -errno when the table cannot be read.
 */
int fuse_conns(pid_t tid, unsigned *conns, int max);

/*
 * Abort connection conn: every request waiting on it fails (ENOTCONN) and
 * its waiters go on. Through a fusectl mount of our own, detached (fsopen,
 * fsmount: CAP_SYS_ADMIN; no path anyone else can steer), else through the
 * host's /sys/fs/fuse/connections when fusectl is mounted there (the
 * connection's owner may write its abort file). 0 or -errno.
 */
int fuse_abort(unsigned conn);

#endif
