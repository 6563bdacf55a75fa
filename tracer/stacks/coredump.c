/*
 * coredump.c - an ELF core file of a ptrace-stopped process, laid out as
 * the kernel's binfmt_elf writes one (fs/binfmt_elf.c, elf_core_dump()),
 * so that gdb reads it as it reads the kernel's (docs/cores.md).
 *
 * Layout: the ELF header, one PT_NOTE then one PT_LOAD per mapping (in
 * /proc/PID/smaps order), the notes, padding to a page, the data. Notes in
 * the kernel's order: per thread NT_PRSTATUS, then for the first thread
 * only NT_PRPSINFO, NT_SIGINFO (a crash), NT_AUXV, NT_FILE, then the
 * thread's NT_PRFPREG and NT_X86_XSTATE; after the last thread,
 * NT_X86_XSAVE_LAYOUT. The first thread is the one gdb shows first: the
 * crashing one, else the leader.
 *
 * What of a mapping is dumped follows the kernel's vma_dump_size() and the
 * member's own /proc/PID/coredump_filter: VM_DONTDUMP ("dd" in smaps),
 * VM_IO ("io") and [vvar] give nothing; [vdso] and [vsyscall] all; a
 * shared mapping by filter bit 1 (anonymous: its file has no name left)
 * or bit 3; a private one that was written to (anonymous pages: the
 * kernel's anon_vma) by bit 0; an unwritten file mapping by bit 2, else
 * its first page when it starts an ELF file (bit 4: gdb needs the
 * headers and build-ids of what was mapped). The rest of a mapping's
 * PT_LOAD has p_filesz 0 and p_memsz its size.
 */
#include <cpuid.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <nettle/sha2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/procfs.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <time.h>
#include <unistd.h>

#include "coredump.h"
#include "json.h"

#if defined(__x86_64__)

#define PAGE	   4096ul
#define CHUNK	   (1ul << 20)
#define MAX_SEGS   65534 /* e_phnum beyond needs PN_XNUM: not written */
#define XSTATE_MAX 16384
#ifndef NT_X86_XSAVE_LAYOUT
#define NT_X86_XSAVE_LAYOUT 0x205 /* Linux 6.11 */
#endif

struct seg {
	uint64_t start, end, off, dump, filesz;
	uint32_t flags;
};

struct coredump {
	pid_t pid;
	int memfd;	  /* /proc/PID/mem, opened by the tracing thread; -1 */
	struct sbuf head; /* ELF header, program headers, notes */
	struct seg *segs;
	size_t nsegs;
	uint64_t data_off, total;
	bool cut_bytes;
	unsigned threads;
};

static int slurp(const char *path, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t cap = 4096, n = 0;
	char *b = malloc(cap + 1);
	for (;;) {
		if (!b) {
			close(fd);
			return -ENOMEM;
		}
		ssize_t r = read(fd, b + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = -errno;
			free(b);
			close(fd);
			return e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n == cap) {
			cap *= 2;
			char *nb = realloc(b, cap + 1);
			if (!nb)
				free(b);
			b = nb;
		}
	}
	close(fd);
	b[n] = 0;
	*out = b;
	*len = n;
	return 0;
}

/* /proc/PID/stat after the command name: fields 3.. as numbers. */
struct pstat {
	char state;
	char comm[16];
	long f[52]; /* f[i] is field i (1-based as in proc(5)) */
};

static int read_stat(const char *path, struct pstat *s)
{
	char *b;
	size_t n;
	int r = slurp(path, &b, &n);
	if (r < 0)
		return r;
	memset(s, 0, sizeof(*s));
	char *open = strchr(b, '('), *close_ = strrchr(b, ')');
	if (!open || !close_ || close_ < open) {
		free(b);
		return -EIO;
	}
	size_t cl = (size_t)(close_ - open - 1);
	if (cl > sizeof(s->comm) - 1)
		cl = sizeof(s->comm) - 1;
	memcpy(s->comm, open + 1, cl);
	char *p = close_ + 1;
	while (*p == ' ')
		p++;
	s->state = *p;
	p++;
	for (int i = 4; i < 52 && *p; i++) {
		char *end;
		s->f[i] = strtol(p, &end, 10);
		if (end == p)
			break;
		p = end;
	}
	free(b);
	return 0;
}

/* A "Key:\tvalue" line of a status file, as text; NULL if absent. */
static const char *status_field(const char *b, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = b; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (!strncmp(p, key, kl) && p[kl] == ':')
			return p + kl + 1;
	return NULL;
}

static unsigned long status_hex(const char *b, const char *key)
{
	const char *v = status_field(b, key);
	return v ? strtoul(v, NULL, 16) : 0;
}

static unsigned long status_num(const char *b, const char *key)
{
	const char *v = status_field(b, key);
	return v ? strtoul(v, NULL, 10) : 0;
}

static struct timeval ticks_tv(long ticks)
{
	static long hz;
	if (!hz)
		hz = sysconf(_SC_CLK_TCK);
	if (hz <= 0)
		hz = 100;
	struct timeval tv = {.tv_sec = ticks / hz,
			     .tv_usec = (ticks % hz) * (1000000 / hz)};
	return tv;
}

static void note(struct sbuf *b, const char *name, uint32_t type,
		 const void *desc, size_t len)
{
	static const char zero[8];
	Elf64_Nhdr h = {.n_namesz = (uint32_t)strlen(name) + 1,
			.n_descsz = (uint32_t)len,
			.n_type = type};
	sb_put(b, (const char *)&h, sizeof(h));
	sb_put(b, name, h.n_namesz);
	sb_put(b, zero, (4 - h.n_namesz % 4) % 4);
	sb_put(b, desc, len);
	sb_put(b, zero, (4 - len % 4) % 4);
}

struct thread {
	pid_t tid;
	struct user_regs_struct regs;
	struct user_fpregs_struct fp;
	bool has_fp;
	unsigned char *xstate;
	size_t xlen;
	struct pstat st;
	unsigned long sigpend, sighold;
};

static int get_thread(pid_t pid, struct thread *t)
{
	struct iovec io = {&t->regs, sizeof(t->regs)};
	if (ptrace(PTRACE_GETREGSET, t->tid, (void *)NT_PRSTATUS, &io) < 0)
		return -errno;
	io = (struct iovec){&t->fp, sizeof(t->fp)};
	t->has_fp =
		ptrace(PTRACE_GETREGSET, t->tid, (void *)NT_PRFPREG, &io) == 0;
	t->xstate = malloc(XSTATE_MAX);
	if (t->xstate) {
		io = (struct iovec){t->xstate, XSTATE_MAX};
		if (ptrace(PTRACE_GETREGSET, t->tid, (void *)NT_X86_XSTATE,
			   &io) == 0)
			t->xlen = io.iov_len;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, t->tid);
	read_stat(path, &t->st);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, t->tid);
	char *b;
	size_t n;
	if (slurp(path, &b, &n) == 0) {
		t->sigpend = status_hex(b, "SigPnd");
		t->sighold = status_hex(b, "SigBlk");
		free(b);
	}
	return 0;
}

static void put_prstatus(struct sbuf *b, const struct thread *t,
			 const struct pstat *proc, int sig, bool leader)
{
	struct elf_prstatus p;
	memset(&p, 0, sizeof(p));
	/* As the kernel: every thread carries the signal of the dump. */
	p.pr_info.si_signo = sig;
	p.pr_cursig = (short)sig;
	p.pr_sigpend = t->sigpend;
	p.pr_sighold = t->sighold;
	p.pr_pid = t->tid;
	p.pr_ppid = (pid_t)proc->f[4];
	p.pr_pgrp = (pid_t)proc->f[5];
	p.pr_sid = (pid_t)proc->f[6];
	/* The leader's times are the process's, as in fill_prstatus(). */
	const struct pstat *s = leader ? proc : &t->st;
	p.pr_utime = ticks_tv(s->f[14]);
	p.pr_stime = ticks_tv(s->f[15]);
	p.pr_cutime = ticks_tv(proc->f[16]);
	p.pr_cstime = ticks_tv(proc->f[17]);
	memcpy(&p.pr_reg, &t->regs, sizeof(p.pr_reg));
	p.pr_fpvalid = t->has_fp;
	note(b, "CORE", NT_PRSTATUS, &p, sizeof(p));
}

static void put_prpsinfo(struct sbuf *b, pid_t pid, const struct pstat *s,
			 const char *status, const char *cmd, size_t cmdlen)
{
	struct elf_prpsinfo p;
	memset(&p, 0, sizeof(p));
	const char *states = "RSDTZW";
	const char *at = s->state ? strchr(states, s->state) : NULL;
	p.pr_state = at ? (char)(at - states) : 0;
	p.pr_sname = s->state ? s->state : '.';
	p.pr_zomb = s->state == 'Z';
	p.pr_nice = (char)s->f[19];
	p.pr_flag = (unsigned long)s->f[9];
	p.pr_uid = (unsigned)status_num(status ? status : "", "Uid");
	p.pr_gid = (unsigned)status_num(status ? status : "", "Gid");
	p.pr_pid = pid;
	p.pr_ppid = (pid_t)s->f[4];
	p.pr_pgrp = (pid_t)s->f[5];
	p.pr_sid = (pid_t)s->f[6];
	memcpy(p.pr_fname, s->comm, sizeof(p.pr_fname));
	size_t n = cmdlen < sizeof(p.pr_psargs) - 1 ? cmdlen
						    : sizeof(p.pr_psargs) - 1;
	memcpy(p.pr_psargs, cmd, n);
	for (size_t i = 0; i < n; i++)
		if (!p.pr_psargs[i])
			p.pr_psargs[i] = ' ';
	note(b, "CORE", NT_PRPSINFO, &p, sizeof(p));
}

/* One line of /proc/PID/smaps with what its fields said. */
struct map {
	uint64_t start, end, pgoff;
	char perms[5];
	unsigned long inode;
	const char *path; /* into the smaps text */
	size_t pathlen;
	bool anon, dd, io, sh, ht;
};

static bool is_hex(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
}

static bool has_flag(const char *flags, const char *f)
{
	for (const char *p = flags; *p && *p != '\n';) {
		while (*p == ' ')
			p++;
		if (p[0] == f[0] && p[1] == f[1] &&
		    (p[2] == ' ' || p[2] == '\n' || !p[2]))
			return true;
		while (*p && *p != ' ' && *p != '\n')
			p++;
	}
	return false;
}

/* Parse smaps (b is modified: paths are cut at their newline). */
static int parse_smaps(char *b, struct map **out, size_t *n)
{
	size_t cap = 64, k = 0;
	struct map *v = malloc(cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (char *p = b; p && *p;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		if (is_hex(*p)) {
			if (k == cap) {
				cap *= 2;
				struct map *nv = realloc(v, cap * sizeof(*v));
				if (!nv) {
					free(v);
					return -ENOMEM;
				}
				v = nv;
			}
			struct map *m = &v[k];
			memset(m, 0, sizeof(*m));
			int off = 0;
			unsigned long long s, e, pg;
			unsigned dmaj, dmin;
			if (sscanf(p, "%llx-%llx %4s %llx %x:%x %lu %n", &s, &e,
				   m->perms, &pg, &dmaj, &dmin, &m->inode,
				   &off) >= 7) {
				m->start = s;
				m->end = e;
				m->pgoff = pg;
				m->path = off ? p + off : "";
				m->pathlen = strlen(m->path);
				k++;
			}
		} else if (k && !strncmp(p, "Anonymous:", 10)) {
			v[k - 1].anon = strtoul(p + 10, NULL, 10) > 0;
		} else if (k && !strncmp(p, "VmFlags:", 8)) {
			struct map *m = &v[k - 1];
			m->dd = has_flag(p + 8, "dd");
			m->io = has_flag(p + 8, "io");
			m->sh = has_flag(p + 8, "sh");
			m->ht = has_flag(p + 8, "ht");
		}
		p = nl ? nl + 1 : NULL;
	}
	*out = v;
	*n = k;
	return 0;
}

static ssize_t peek(pid_t pid, int memfd, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = {buf, len}, r = {(void *)addr, len};
	ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);
	if (n == (ssize_t)len)
		return n;
	if (memfd >= 0 && addr < (uint64_t)INT64_MAX)
		return pread(memfd, buf, len, (off_t)addr);
	return n;
}

static bool ends_with(const struct map *m, const char *s)
{
	size_t l = strlen(s);
	return m->pathlen >= l && !memcmp(m->path + m->pathlen - l, s, l);
}

static uint64_t dump_size(const struct map *m, unsigned long filter, pid_t pid,
			  int memfd)
{
	uint64_t len = m->end - m->start;
	if (!strcmp(m->path, "[vdso]") || !strcmp(m->path, "[vsyscall]"))
		return len;
	if (m->dd || !strncmp(m->path, "[vvar", 5))
		return 0;
	if (m->ht)
		return (filter & (m->sh ? 0x40 : 0x20)) ? len : 0;
	if (m->io)
		return 0;
	if (m->sh) {
		/* The kernel asks whether the file has links left. */
		bool anon = !m->inode || ends_with(m, " (deleted)");
		return (filter & (anon ? 0x2 : 0x8)) ? len : 0;
	}
	if (m->anon && (filter & 0x1))
		return len;
	if (!m->inode)
		return 0;
	if (filter & 0x4)
		return len;
	if ((filter & 0x10) && m->pgoff == 0 && m->perms[0] == 'r') {
		unsigned char magic[4];
		if (peek(pid, memfd, m->start, magic, 4) == 4 &&
		    !memcmp(magic, ELFMAG, SELFMAG))
			return len < PAGE ? len : PAGE;
	}
	return 0;
}

/* NT_FILE: count, page size, (start, end, page offset)*, names. */
static void put_files(struct sbuf *b, const struct map *v, size_t n)
{
	struct sbuf d = {0}, names = {0};
	uint64_t count = 0, page = PAGE;
	for (size_t i = 0; i < n; i++)
		if (v[i].inode && v[i].pathlen)
			count++;
	sb_put(&d, (const char *)&count, 8);
	sb_put(&d, (const char *)&page, 8);
	for (size_t i = 0; i < n; i++) {
		if (!v[i].inode || !v[i].pathlen)
			continue;
		uint64_t t[3] = {v[i].start, v[i].end, v[i].pgoff / PAGE};
		sb_put(&d, (const char *)t, sizeof(t));
		sb_put(&names, v[i].path, v[i].pathlen + 1);
	}
	sb_put(&d, names.p ? names.p : "", names.len);
	if (count && !d.oom && !names.oom)
		note(b, "CORE", NT_FILE, d.p, d.len);
	sb_free(&d);
	sb_free(&names);
}

/*
 * NT_X86_XSAVE_LAYOUT, as the kernel appends it after the threads' notes
 * (arch/x86/kernel/fpu/xstate.c): where each extended state component
 * (2 and up, those XCR0 enables) lies in the XSAVE area of the
 * NT_X86_XSTATE notes, from CPUID leaf 0xD: a debugger needs it where the
 * layout is not Intel's standard one. The same for every process.
 */
static void put_xsave_layout(struct sbuf *b)
{
	unsigned a, bx, c, d;
	if (!__get_cpuid_count(1, 0, &a, &bx, &c, &d) || !(c & bit_OSXSAVE))
		return;
	unsigned lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	uint64_t xcr0 = (uint64_t)hi << 32 | lo;
	struct {
		uint32_t type, size, offset, flags;
	} v[62];
	size_t n = 0;
	for (unsigned i = 2; i < 64; i++) {
		if (!(xcr0 & (1ull << i)) ||
		    !__get_cpuid_count(0xd, i, &a, &bx, &c, &d) || !a)
			continue;
		v[n++] = (typeof(v[0])){i, a, bx, 0};
	}
	if (n)
		note(b, "LINUX", NT_X86_XSAVE_LAYOUT, v, n * sizeof(v[0]));
}

void coredump_free(struct coredump *d)
{
	if (!d)
		return;
	if (d->memfd >= 0)
		close(d->memfd);
	sb_free(&d->head);
	free(d->segs);
	free(d);
}

uint64_t coredump_planned(const struct coredump *d)
{
	return d->total;
}

/* Order: the crashing thread (or the leader) first, as the kernel does. */
static size_t first_index(const struct coredump_req *r)
{
	for (size_t i = 0; i < r->ntids; i++)
		if (r->sig_tid && r->tids[i] == r->sig_tid)
			return i;
	for (size_t i = 0; i < r->ntids; i++)
		if (r->tids[i] == r->pid)
			return i;
	return 0;
}

static void layout(struct coredump *d, const struct map *v, size_t n,
		   unsigned long filter, uint64_t max)
{
	uint64_t off = d->data_off;
	for (size_t i = 0; i < n && d->nsegs < MAX_SEGS; i++) {
		struct seg *s = &d->segs[d->nsegs++];
		s->start = v[i].start;
		s->end = v[i].end;
		s->flags = (v[i].perms[0] == 'r' ? PF_R : 0) |
			   (v[i].perms[1] == 'w' ? PF_W : 0) |
			   (v[i].perms[2] == 'x' ? PF_X : 0);
		s->dump = dump_size(&v[i], filter, d->pid, d->memfd);
		uint64_t room = max > off ? (max - off) & ~(PAGE - 1) : 0;
		s->filesz = s->dump < room ? s->dump : room;
		if (s->filesz < s->dump)
			d->cut_bytes = true;
		s->off = off;
		off += s->filesz;
	}
	d->total = off;
}

static void put_phdrs(struct coredump *d, unsigned char *at, size_t notes_off,
		      size_t notes_len)
{
	Elf64_Phdr *ph = (Elf64_Phdr *)at;
	memset(ph, 0, sizeof(*ph) * (d->nsegs + 1));
	ph[0].p_type = PT_NOTE;
	ph[0].p_offset = notes_off;
	ph[0].p_filesz = notes_len;
	for (size_t i = 0; i < d->nsegs; i++) {
		const struct seg *s = &d->segs[i];
		Elf64_Phdr *p = &ph[i + 1];
		p->p_type = PT_LOAD;
		p->p_offset = s->off;
		p->p_vaddr = s->start;
		p->p_filesz = s->filesz;
		p->p_memsz = s->end - s->start;
		p->p_flags = s->flags;
		p->p_align = PAGE;
	}
}

/* What /proc says of the process, read before anything is written. */
struct proc_files {
	struct pstat ps;
	char *status, *cmd, *auxv, *smaps;
	size_t cmd_len, auxv_len;
	struct map *maps; /* their paths point into smaps */
	size_t nmaps;
	unsigned long filter; /* /proc/PID/coredump_filter */
};

static void proc_files_free(struct proc_files *pf)
{
	free(pf->maps);
	free(pf->smaps);
	free(pf->status);
	free(pf->cmd);
	free(pf->auxv);
}

/*
 * Its own step: stat and smaps are needed (-errno, err written, without
 * them), status, cmdline, auxv and coredump_filter are taken as far as they
 * can be read (the notes go without them, the filter is the kernel's
 * default).
 */
static int read_proc(pid_t pid, struct proc_files *pf, char *err, size_t errlen)
{
	char path[64], *filt = NULL;
	size_t status_len = 0, smaps_len = 0, filt_len = 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	int ret = read_stat(path, &pf->ps);
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	snprintf(path, sizeof(path), "/proc/%d/smaps", pid);
	ret = slurp(path, &pf->smaps, &smaps_len);
	if (ret == 0)
		ret = parse_smaps(pf->smaps, &pf->maps, &pf->nmaps);
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	slurp(path, &pf->status, &status_len);
	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	slurp(path, &pf->cmd, &pf->cmd_len);
	snprintf(path, sizeof(path), "/proc/%d/auxv", pid);
	slurp(path, &pf->auxv, &pf->auxv_len);
	pf->filter = 0x33; /* the kernel's default */
	snprintf(path, sizeof(path), "/proc/%d/coredump_filter", pid);
	if (slurp(path, &filt, &filt_len) == 0)
		pf->filter = strtoul(filt, NULL, 16);
	free(filt);
	return 0;
}

/*
 * The threads' registers, first one first (first_index); those not in a
 * stop are left out and counted in *skipped. th has r->ntids entries (at
 * least 1); returns how many were taken.
 */
static size_t read_threads(const struct coredump_req *r, struct thread *th,
			   unsigned *skipped)
{
	size_t first = first_index(r), nth = 0;
	for (size_t k = 0; k < r->ntids; k++) {
		size_t i = k == 0 ? first : (k <= first ? k - 1 : k);
		th[nth].tid = r->tids[i];
		if (get_thread(r->pid, &th[nth]) == 0)
			nth++;
		else
			++*skipped, free(th[nth].xstate), th[nth].xstate = NULL;
	}
	return nth;
}

/* The PT_NOTE segment: each thread's notes, the process's with the first
 * (as the kernel orders them), the XSAVE layout last. */
static void put_notes(struct sbuf *notes, const struct coredump_req *r,
		      const struct thread *th, size_t nth,
		      const struct proc_files *pf)
{
	siginfo_t si;
	bool has_si = r->sig_tid && th[0].tid == r->sig_tid &&
		      ptrace(PTRACE_GETSIGINFO, r->sig_tid, 0, &si) == 0;
	for (size_t i = 0; i < nth; i++) {
		int sig = r->sig;
		put_prstatus(notes, &th[i], &pf->ps, sig, th[i].tid == r->pid);
		if (i == 0) {
			put_prpsinfo(notes, r->pid, &pf->ps, pf->status,
				     pf->cmd ? pf->cmd : "", pf->cmd_len);
			if (has_si)
				note(notes, "CORE", NT_SIGINFO, &si,
				     sizeof(si));
			if (pf->auxv_len)
				note(notes, "CORE", NT_AUXV, pf->auxv,
				     pf->auxv_len);
			put_files(notes, pf->maps, pf->nmaps);
		}
		if (th[i].has_fp)
			note(notes, "CORE", NT_PRFPREG, &th[i].fp,
			     sizeof(th[i].fp));
		if (th[i].xlen)
			note(notes, "LINUX", NT_X86_XSTATE, th[i].xstate,
			     th[i].xlen);
	}
	if (th[0].xlen)
		put_xsave_layout(notes);
}

/* The file's head, all of it but the memory: the ELF header, the program
 * headers (the notes', then one a segment), the notes. 0 or -ENOMEM. */
static int put_head(struct coredump *d, size_t notes_off,
		    const struct sbuf *notes)
{
	Elf64_Ehdr eh;
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_ident[EI_OSABI] = ELFOSABI_NONE;
	eh.e_type = ET_CORE;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof(Elf64_Ehdr);
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = (uint16_t)(d->nsegs + 1);
	sb_put(&d->head, (const char *)&eh, sizeof(eh));
	size_t phlen = (d->nsegs + 1) * sizeof(Elf64_Phdr);
	unsigned char *ph = calloc(1, phlen);
	if (ph) {
		put_phdrs(d, ph, notes_off, notes->len);
		sb_put(&d->head, (const char *)ph, phlen);
		free(ph);
	}
	sb_put(&d->head, notes->p, notes->len);
	return !ph || d->head.oom ? -ENOMEM : 0;
}

int coredump_prepare(const struct coredump_req *r, struct coredump **out,
		     unsigned *skipped, char *err, size_t errlen)
{
	*out = NULL;
	*skipped = 0;
	if (r->pid == getpid()) {
		snprintf(err, errlen, "refused: that is corral itself");
		return -EPERM;
	}
	char path[64];
	struct proc_files pf = {0};
	struct thread *th = NULL;
	int ret;
	struct coredump *d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->pid = r->pid;
	d->memfd = -1; /* not 0: coredump_free would close the caller's fd 0 */
	ret = read_proc(r->pid, &pf, err, errlen);
	if (ret < 0)
		goto fail;
	snprintf(path, sizeof(path), "/proc/%d/mem", r->pid);
	d->memfd = open(path, O_RDONLY | O_CLOEXEC);

	th = calloc(r->ntids ? r->ntids : 1, sizeof(*th));
	if (!th) {
		ret = -ENOMEM;
		goto fail;
	}
	size_t nth = read_threads(r, th, skipped);
	if (!nth) {
		snprintf(err, errlen, "no thread of it is stopped");
		ret = -ESRCH;
		goto fail;
	}

	/* Program headers first (the notes' offset depends on their count). */
	size_t nsegs = pf.nmaps < MAX_SEGS ? pf.nmaps : MAX_SEGS;
	d->segs = calloc(nsegs ? nsegs : 1, sizeof(*d->segs));
	if (!d->segs) {
		ret = -ENOMEM;
		goto fail;
	}
	size_t notes_off =
		sizeof(Elf64_Ehdr) + (nsegs + 1) * sizeof(Elf64_Phdr);
	struct sbuf notes = {0};
	put_notes(&notes, r, th, nth, &pf);
	d->threads = (unsigned)nth;
	if (notes.oom) {
		sb_free(&notes);
		ret = -ENOMEM;
		goto fail;
	}
	d->data_off = (notes_off + notes.len + PAGE - 1) & ~(PAGE - 1);
	layout(d, pf.maps, pf.nmaps, pf.filter, r->max_bytes);
	ret = put_head(d, notes_off, &notes);
	sb_free(&notes);
	if (ret < 0)
		goto fail;
	*out = d;
	d = NULL;
fail:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (th)
		for (size_t i = 0; i < r->ntids; i++)
			free(th[i].xstate);
	free(th);
	proc_files_free(&pf);
	coredump_free(d);
	return ret;
}

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Read len bytes at addr: process_vm_readv, then page by page what it
 * could not give, through /proc/PID/mem (which also reads what the
 * process may not: the kernel's dump does), else zeros as the kernel's
 * holes. -ESRCH when the process is gone.
 */
static int read_mem(struct coredump *d, uint64_t addr, unsigned char *buf,
		    size_t len, uint64_t *unread)
{
	struct iovec l = {buf, len}, r = {(void *)addr, len};
	ssize_t n = process_vm_readv(d->pid, &l, 1, &r, 1, 0);
	if (n < 0 && errno == ESRCH)
		return -ESRCH;
	size_t done = n > 0 ? (size_t)n : 0;
	while (done < len) {
		uint64_t a = addr + done;
		size_t pg = PAGE - (a & (PAGE - 1));
		if (pg > len - done)
			pg = len - done;
		n = peek(d->pid, d->memfd, a, buf + done, pg);
		if (n != (ssize_t)pg) {
			memset(buf + done, 0, pg);
			*unread += pg;
		}
		done += pg;
	}
	return 0;
}

static bool zero_page(const unsigned char *p, size_t n)
{
	const uint64_t *w = (const uint64_t *)p;
	for (size_t i = 0; i < n / 8; i++)
		if (w[i])
			return false;
	for (size_t i = n & ~7ul; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* Write what is not zero (zeros stay holes: a sparse file). */
static int put_data(int fd, const unsigned char *buf, size_t len, uint64_t off)
{
	for (size_t i = 0; i < len;) {
		size_t pg = len - i < PAGE ? len - i : PAGE;
		if (zero_page(buf + i, pg)) {
			i += pg;
			continue;
		}
		size_t j = i + pg;
		while (j < len) {
			size_t q = len - j < PAGE ? len - j : PAGE;
			if (zero_page(buf + j, q))
				break;
			j += q;
		}
		size_t w = 0;
		while (w < j - i) {
			ssize_t n = pwrite(fd, buf + i + w, j - i - w,
					   (off_t)(off + i + w));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return n < 0 ? -errno : -ENOSPC;
			w += (size_t)n;
		}
		i = j;
	}
	return 0;
}

static int put_all(int fd, const void *p, size_t len, uint64_t off)
{
	size_t w = 0;
	while (w < len) {
		ssize_t n = pwrite(fd, (const char *)p + w, len - w,
				   (off_t)(off + w));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ENOSPC;
		w += (size_t)n;
	}
	return 0;
}

int coredump_write(struct coredump *d, int fd, double deadline,
		   const atomic_int *cancel, struct coredump_out *out)
{
	memset(out, 0, sizeof(*out));
	out->threads = d->threads;
	unsigned char *buf = malloc(CHUNK);
	if (!buf)
		return -ENOMEM;
	struct sha256_ctx sha;
	sha256_init(&sha);
	int e = put_all(fd, d->head.p, d->head.len, 0);
	sha256_update(&sha, d->head.len, (const uint8_t *)d->head.p);
	memset(buf, 0, PAGE);
	sha256_update(&sha, d->data_off - d->head.len, buf);
	uint64_t end = d->data_off;
	size_t cut_at = d->nsegs; /* the first segment not written whole */
	for (size_t i = 0; !e && i < d->nsegs; i++) {
		struct seg *s = &d->segs[i];
		uint64_t done = 0;
		while (done < s->filesz) {
			if (mono() >= deadline || atomic_load(cancel)) {
				out->cut = "time";
				break;
			}
			size_t n = s->filesz - done < CHUNK
					   ? (size_t)(s->filesz - done)
					   : CHUNK;
			if (read_mem(d, s->start + done, buf, n, &out->unread) <
			    0) {
				out->cut = "gone";
				break;
			}
			e = put_data(fd, buf, n, s->off + done);
			if (e) {
				out->err = -e;
				out->cut = e == -ENOSPC || e == -EDQUOT
						   ? "disk full"
						   : "write error";
				break;
			}
			sha256_update(&sha, n, buf);
			done += n;
		}
		end = s->off + done;
		if (out->cut) {
			/* What follows the cut is not in the file. */
			s->filesz = done;
			cut_at = i;
			for (size_t k = i + 1; k < d->nsegs; k++) {
				d->segs[k].filesz = 0;
				d->segs[k].off = end;
			}
			break;
		}
	}
	free(buf);
	if (e && !out->cut) { /* the headers themselves */
		out->err = -e;
		out->cut = e == -ENOSPC || e == -EDQUOT ? "disk full"
							: "write error";
	}
	if (out->cut && cut_at < d->nsegs) {
		/* Rewrite the program headers: p_filesz says what is there. */
		Elf64_Phdr *ph = (Elf64_Phdr *)(d->head.p + sizeof(Elf64_Ehdr));
		size_t notes_off = ph[0].p_offset, notes_len = ph[0].p_filesz;
		put_phdrs(d, (unsigned char *)ph, notes_off, notes_len);
		put_all(fd, ph, (d->nsegs + 1) * sizeof(Elf64_Phdr),
			sizeof(Elf64_Ehdr));
	}
	/* Zeros at the end are holes: give the file its length. */
	if (ftruncate(fd, (off_t)end) < 0 && !out->cut) {
		out->err = errno;
		out->cut = errno == ENOSPC ? "disk full" : "write error";
	}
	out->size = end;
	if (!out->cut && d->cut_bytes)
		out->cut = "bytes";
	out->has_sha = !out->cut || !strcmp(out->cut, "bytes");
	sha256_digest(&sha, SHA256_DIGEST_SIZE, out->sha256);
	return 0;
}

#else /* not x86-64: the note layouts above are that architecture's */

int coredump_prepare(const struct coredump_req *r, struct coredump **out,
		     unsigned *skipped, char *err, size_t errlen)
{
	*out = NULL;
	*skipped = 0;
	snprintf(err, errlen, "core files are written on x86-64 only");
	return -EOPNOTSUPP;
}

int coredump_write(struct coredump *d, int fd, double deadline,
		   const atomic_int *cancel, struct coredump_out *out)
{
	return -EOPNOTSUPP;
}

uint64_t coredump_planned(const struct coredump *d)
{
	return 0;
}

void coredump_free(struct coredump *d)
{
}
#endif
