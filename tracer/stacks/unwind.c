/*
 * unwind.c - stacks of ptrace-stopped threads, with libunwind-ptrace.
 *
 * How one stack is taken (unwinder_stack):
 *
 *  1. Check that tid is a thread of tgid (/proc/TGID/task/TID) and that it is
 *     a ptrace-stopped tracee of ours (PTRACE_GETREGSET fails with ESRCH
 *     otherwise). This turns "wrong pid", "not stopped" and "gone" into a
 *     clean -ESRCH before libunwind sees it.
 *  2. Walk with libunwind: unw_init_remote on the process's cached address
 *     space with a fresh _UPT context for the thread (the context carries
 *     the tid used for PTRACE_PEEK*), then unw_step until the end, an error,
 *     the frame cap, or a repeated (ip, sp) pair.
 *  3. Symbolize each ip through a per-process cache: a miss calls
 *     unw_get_proc_name (which maps the ELF file and searches its symbol
 *     tables: expensive) and looks the module up in the process's
 *     executable mappings, read from /proc/TGID/maps once.
 *
 * What makes 1,000 threads of one process cheap: the address space is
 * created once per process with UNW_CACHE_GLOBAL, so libunwind's register
 * state cache (keyed by ip) holds the DWARF CFI results of the first thread
 * and later threads parked at the same places skip .eh_frame parsing; and
 * the symbol cache means unw_get_proc_name runs once per distinct ip, not
 * once per frame.
 *
 * Lifetimes: frames point at strings owned by per-process state. Forgetting
 * a process does not free it at once but parks it on a graveyard emptied at
 * the start of the next unwinder_stack(), so that the documented lifetime
 * ("until the next unwinder_stack call") holds even across
 * unwinder_forget().
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* process_vm_readv */
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <time.h>
#include <unistd.h>
#include <elf.h>

#include <libunwind-ptrace.h>

#include "unwind.h"

/* One executable, file-backed (or [vdso]-like) mapping. */
struct uw_map {
	uint64_t start, end;
	const char *path; /* owned by uw_proc.paths */
};

/* Symbol cache entry; key is (ip, prev) where prev says "look at ip - 1". */
struct uw_sym {
	uint64_t ip;
	uint64_t off;
	const char *func;   /* owned here (malloc), NULL: no symbol */
	const char *module; /* owned by uw_proc.paths, may be NULL */
	uint8_t used, prev;
};

struct uw_proc {
	pid_t tgid;
	struct uw_proc *next; /* hash chain, or graveyard link */
	unw_addr_space_t as;

	struct uw_map *maps; /* sorted by start, non-overlapping */
	size_t nmaps;
	bool maps_loaded;
	unsigned long maps_gen; /* call number of the last read */

	/*
	 * Distinct path strings ever seen in the maps. Only grows (until the
	 * process is forgotten), so that a re-read of the maps never frees a
	 * string a frame or a cache entry points to.
	 */
	char **paths;
	size_t npaths, cappaths;

	struct uw_sym *syms; /* open addressing, capacity a power of 2 */
	size_t nsyms, capsyms;

	/*
	 * The vDSO: libunwind-ptrace finds unwind info by opening the file a
	 * mapping comes from, and "[vdso]" is no file. A thread interrupted
	 * in clock_gettime (busy loops!) would then be unwound by guesswork
	 * past its first frame. We read the image from the process instead.
	 */
	uint64_t vdso_start, vdso_end; /* from the maps, 0 if none */
	bool vdso_tried, vdso_ok;
	unw_dyn_info_t vdso_di;	  /* its .eh_frame_hdr search table */
	unsigned char *vdso_img;  /* copy of the mapping */
	uint64_t vdso_bias;	  /* address = bias + ELF vaddr */
	const Elf64_Sym *vdso_syms;
	size_t vdso_nsyms;
	const char *vdso_strs;
	size_t vdso_strsz;
};

#define UW_CACHE_PAGES 8

/*
 * The walk in progress, for our accessors. libunwind passes them the _UPT
 * context as `arg` (it must: _UPT_find_proc_info calls back into the
 * address space's accessors with the arg it was given, so a wrapper arg
 * would reach _UPT code that expects its own), and this says which process
 * and registers go with that context. Thread-local: unwinders used from
 * different threads do not meet.
 */
struct uw_arg {
	void *upt;	   /* _UPT context of the thread */
	struct uw_proc *p; /* its process */
#if defined(__x86_64__)
	struct user_regs_struct regs; /* fetched once, for access_reg */
#endif
	/*
	 * The walk's bounds (unwind.h, struct unwinder_limits): every read
	 * libunwind makes of the member's memory comes through
	 * uw_access_mem, which counts it and refuses past the budget or the
	 * deadline; `cut` then says which ("budget", "deadline").
	 */
	int memfd; /* /proc/TGID/mem, or -1: PTRACE_PEEKDATA */
	unsigned long reads, max_reads;
	uint64_t bytes, max_bytes;
	double deadline; /* CLOCK_MONOTONIC seconds, 0: none */
	const char *cut;
	/* A few pages of memfd reads, for this walk only (the thread may run
	 * between walks: nothing is kept across them). */
	struct {
		uint64_t page; /* address >> 12, 0: empty */
		unsigned char data[4096];
	} cache[UW_CACHE_PAGES];
};

#define UW_BUCKETS 256

struct corral_unwinder {
	struct uw_proc *bucket[UW_BUCKETS];
	struct uw_proc *graveyard; /* forgotten, freed at the next stack */
	unsigned long call;	   /* unwinder_stack calls so far */
	uint64_t *seen;		   /* (ip, sp) pairs of the current walk */
	size_t capseen;
	struct unwinder_stats st;
};

/* ------------------------------------------------------------------ */
/* Reason strings: static, so the caller may keep them forever. */

#define UW_ERRS(X)                                                             \
	X(UNW_EUNSPEC)                                                         \
	X(UNW_ENOMEM)                                                          \
	X(UNW_EBADREG)                                                         \
	X(UNW_EREADONLYREG)                                                    \
	X(UNW_ESTOPUNWIND)                                                     \
	X(UNW_EINVALIDIP)                                                      \
	X(UNW_EBADFRAME)                                                       \
	X(UNW_EINVAL)                                                          \
	X(UNW_EBADVERSION)                                                     \
	X(UNW_ENOINFO)

/* Why libunwind gave up, as a stack's "truncated" reason: which call and
 * its error's name. */
static const char *uw_reason(int err, bool init)
{
	switch (-err) {
#define X(e)                                                                   \
	case e:                                                                \
		return init ? "unw_init_remote: -" #e : "unw_step: -" #e;
		UW_ERRS(X)
#undef X
	}
	return init ? "unw_init_remote: failed" : "unw_step: failed";
}

static unw_accessors_t uw_accessors;

/* ------------------------------------------------------------------ */
/* Per-process state */

static void proc_free(struct uw_proc *p)
{
	if (!p)
		return;
	if (p->as)
		unw_destroy_addr_space(p->as);
	for (size_t i = 0; i < p->capsyms; i++)
		if (p->syms[i].used)
			free((char *)p->syms[i].func);
	free(p->syms);
	for (size_t i = 0; i < p->npaths; i++)
		free(p->paths[i]);
	free(p->paths);
	free(p->maps);
	free(p->vdso_img);
	free(p);
}

static unsigned bucket_of(pid_t tgid)
{
	return ((uint32_t)tgid * 2654435761u) >> 24; /* 0..255 */
}

static struct uw_proc *proc_find(struct corral_unwinder *u, pid_t tgid)
{
	for (struct uw_proc *p = u->bucket[bucket_of(tgid)]; p; p = p->next)
		if (p->tgid == tgid)
			return p;
	return NULL;
}

static int proc_get(struct corral_unwinder *u, pid_t tgid,
		    struct uw_proc **out)
{
	struct uw_proc *p = proc_find(u, tgid);
	if (p) {
		*out = p;
		return 0;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->tgid = tgid;
	/*
	 * One address space per process: libunwind caches per address space,
	 * and every thread of a process shares its code, hence its CFI. The
	 * byte order 0 means "the host's". The accessors are _UPT_accessors
	 * with a few additions (uw_accessors, below).
	 */
	p->as = unw_create_addr_space(&uw_accessors, 0);
	if (!p->as) {
		free(p);
		return -ENOMEM;
	}
	/*
	 * GLOBAL rather than PER_THREAD: the cache is keyed by the address
	 * space, not by the thread of ours that unwinds, and we unwind from
	 * one thread anyway.
	 */
	unw_set_caching_policy(p->as, UNW_CACHE_GLOBAL);
	unsigned b = bucket_of(tgid);
	p->next = u->bucket[b];
	u->bucket[b] = p;
	u->st.procs++;
	*out = p;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Mappings: /proc/TGID/maps, executable entries only */

static const char *intern_path(struct uw_proc *p, const char *s)
{
	/* Most lookups hit the last path added (consecutive segments). */
	for (size_t i = p->npaths; i-- > 0;)
		if (!strcmp(p->paths[i], s))
			return p->paths[i];
	if (p->npaths == p->cappaths) {
		size_t cap = p->cappaths ? 2 * p->cappaths : 16;
		char **np = realloc(p->paths, cap * sizeof(*np));
		if (!np)
			return NULL;
		p->paths = np;
		p->cappaths = cap;
	}
	char *d = strdup(s);
	if (!d)
		return NULL;
	p->paths[p->npaths++] = d;
	return d;
}

static int map_cmp(const void *a, const void *b)
{
	const struct uw_map *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * (Re)read the executable mappings of the process. Returns 0 or -errno; on
 * failure the previous table is kept.
 */
static int maps_read(struct corral_unwinder *u, struct uw_proc *p)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)p->tgid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	u->st.maps_reads++;
	p->maps_gen = u->call;

	struct uw_map *v = NULL;
	size_t n = 0, cap = 0;
	char *line = NULL;
	size_t linecap = 0;
	int err = 0;
	while (getline(&line, &linecap, f) > 0) {
		uint64_t start, end;
		char perms[8];
		int pos = 0;
		/* start-end perms offset dev inode pathname */
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %*s %*s %*s %n",
			   &start, &end, perms, &pos) < 3 ||
		    pos == 0)
			continue;
		/* Only code can hold an ip; anonymous code (JIT) has no path. */
		if (!strchr(perms, 'x'))
			continue;
		char *name = line + pos;
		name[strcspn(name, "\n")] = 0;
		if (!*name)
			continue;
		if (!strcmp(name, "[vdso]")) {
			p->vdso_start = start;
			p->vdso_end = end;
		}
		const char *interned = intern_path(p, name);
		if (!interned) {
			err = -ENOMEM;
			break;
		}
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 64;
			struct uw_map *nv = realloc(v, ncap * sizeof(*nv));
			if (!nv) {
				err = -ENOMEM;
				break;
			}
			v = nv;
			cap = ncap;
		}
		v[n++] = (struct uw_map){start, end, interned};
	}
	free(line);
	fclose(f);
	if (err) {
		free(v);
		return err;
	}
	/* The kernel lists them sorted; do not rely on it for the search. */
	qsort(v, n, sizeof(*v), map_cmp);
	free(p->maps);
	p->maps = v;
	p->nmaps = n;
	p->maps_loaded = true;
	return 0;
}

static const char *maps_find(const struct uw_proc *p, uint64_t ip)
{
	size_t lo = 0, hi = p->nmaps;
	/* Last mapping with start <= ip. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->maps[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct uw_map *m = &p->maps[lo - 1];
	return ip < m->end ? m->path : NULL;
}

static const char *module_of(struct corral_unwinder *u, struct uw_proc *p,
			     uint64_t ip)
{
	if (!p->maps_loaded && maps_read(u, p) < 0)
		return NULL;
	const char *m = maps_find(p, ip);
	/*
	 * Not found: the process may have mapped code since we read the maps
	 * (dlopen, a new thread's library). Re-read, at most once per call so
	 * that a stack of garbage ips costs one read, not one per frame.
	 */
	if (!m && p->maps_gen != u->call && maps_read(u, p) == 0)
		m = maps_find(p, ip);
	return m;
}

/* ------------------------------------------------------------------ */
/* Symbol cache */

static size_t sym_slot(uint64_t ip, uint8_t prev, size_t cap)
{
	uint64_t h = (ip ^ prev) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 32) & (cap - 1);
}

static struct uw_sym *sym_find(struct uw_proc *p, uint64_t ip, uint8_t prev)
{
	if (!p->capsyms)
		return NULL;
	for (size_t i = sym_slot(ip, prev, p->capsyms);;
	     i = (i + 1) & (p->capsyms - 1)) {
		struct uw_sym *s = &p->syms[i];
		if (!s->used)
			return NULL;
		if (s->ip == ip && s->prev == prev)
			return s;
	}
}

/* Room for one more entry (load <= 1/2). 0 or -ENOMEM. */
static int sym_reserve(struct uw_proc *p)
{
	if (2 * (p->nsyms + 1) <= p->capsyms)
		return 0;
	size_t cap = p->capsyms ? 2 * p->capsyms : 256;
	struct uw_sym *ns = calloc(cap, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; i < p->capsyms; i++) {
		struct uw_sym *s = &p->syms[i];
		if (!s->used)
			continue;
		size_t j = sym_slot(s->ip, s->prev, cap);
		while (ns[j].used)
			j = (j + 1) & (cap - 1);
		ns[j] = *s;
	}
	free(p->syms);
	p->syms = ns;
	p->capsyms = cap;
	return 0;
}

/*
 * Name and module of the frame the cursor is on. `prev` mirrors what
 * unw_get_proc_name does internally: for a caller frame the ip is a return
 * address, which may already be past the end of the function (a call to a
 * noreturn function is often its last instruction), so the lookup is done
 * at ip - 1. It is part of the key so that both lookups of one ip never mix.
 */
static void symbolize(struct corral_unwinder *u, struct uw_proc *p,
		      unw_cursor_t *c, uint64_t ip, bool prev,
		      struct corral_frame *f)
{
	struct uw_sym *s = sym_find(p, ip, prev);
	if (s) {
		u->st.sym_hits++;
		f->func = s->func;
		f->off = s->func ? s->off : 0;
		f->module = s->module;
		return;
	}

	char buf[512];
	unw_word_t off = 0;
	u->st.sym_lookups++;
	int r = unw_get_proc_name(c, buf, sizeof(buf), &off);
	/* -UNW_ENOMEM: the name was truncated, still better than nothing. */
	bool named = (r == 0 || r == -UNW_ENOMEM) && buf[0];
	f->func = NULL;
	f->off = 0;
	f->module = module_of(u, p, prev ? ip - 1 : ip);

	char *name = named ? strdup(buf) : NULL;
	if (named && !name)
		return; /* no memory: an unnamed frame, not a failure */
	if (sym_reserve(p) < 0) {
		/*
		 * Cannot cache it, so nothing would own the string: give the
		 * frame no name rather than leak or dangle.
		 */
		free(name);
		return;
	}
	size_t i = sym_slot(ip, prev, p->capsyms);
	while (p->syms[i].used)
		i = (i + 1) & (p->capsyms - 1);
	p->syms[i] = (struct uw_sym){
		.ip = ip,
		.off = off,
		.func = name,
		.module = f->module,
		.used = 1,
		.prev = prev,
	};
	p->nsyms++;
	f->func = name;
	f->off = name ? off : 0;
}

/* ------------------------------------------------------------------ */
/* The vDSO, read from the process's memory */

/* libunwind's own search over an .eh_frame_hdr table (what _UPT uses). */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as,
					      unw_word_t ip,
					      unw_dyn_info_t *di,
					      unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);

#define DW_EH_PE_udata4 0x03
#define DW_EH_PE_sdata4 0x0b
#define DW_EH_PE_datarel 0x30

/* Is [off, off + len) inside an image of size size? */
static bool in_img(uint64_t off, uint64_t len, size_t size)
{
	return off <= size && len <= size - off;
}

/*
 * Copy the [vdso] mapping and find in it the .eh_frame_hdr binary-search
 * table (for unwinding) and .dynsym (for names). Any surprise leaves
 * vdso_ok false: then vDSO frames are unwound the way libunwind does
 * without info (a frame-pointer guess), no worse than before.
 */
static void vdso_load(struct uw_proc *p, int memfd)
{
	p->vdso_tried = true;
	size_t size = p->vdso_end - p->vdso_start;
	if (!p->vdso_end || size < sizeof(Elf64_Ehdr) || size > (1u << 20))
		return;
	unsigned char *img = malloc(size);
	if (!img)
		return;
	/* The walking process may not be the tracer (walker.c): then it
	 * reads through the /proc/TGID/mem descriptor it was given. */
	if (memfd >= 0) {
		if (pread(memfd, img, size, (off_t)p->vdso_start) !=
		    (ssize_t)size)
			goto bad;
	} else {
		struct iovec local = {img, size};
		struct iovec remote = {(void *)(uintptr_t)p->vdso_start, size};
		if (process_vm_readv(p->tgid, &local, 1, &remote, 1, 0) !=
		    (ssize_t)size)
			goto bad;
	}

	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    !in_img(eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr),
		    size))
		goto bad;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(img + eh->e_phoff);
	const Elf64_Phdr *load = NULL, *ehf = NULL;
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && !load)
			load = &ph[i];
		else if (ph[i].p_type == PT_GNU_EH_FRAME)
			ehf = &ph[i];
	}
	if (!load || !ehf)
		goto bad;
	/* The mapping starts at the first PT_LOAD's file offset. */
	uint64_t vbase = load->p_vaddr - load->p_offset;
	p->vdso_bias = p->vdso_start - vbase;

	/* .eh_frame_hdr: version, 3 encodings, eh_frame_ptr, fde_count. */
	uint64_t hoff = ehf->p_vaddr - vbase;
	if (!in_img(hoff, 12, size))
		goto bad;
	const unsigned char *h = img + hoff;
	if (h[0] != 1 || ((h[1] & 0x0f) != DW_EH_PE_udata4 &&
			  (h[1] & 0x0f) != DW_EH_PE_sdata4) ||
	    h[2] != DW_EH_PE_udata4 ||
	    h[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
		goto bad;
	uint32_t nfde;
	memcpy(&nfde, h + 8, 4);
	if (!in_img(hoff + 12, (uint64_t)nfde * 8, size))
		goto bad;
	uint64_t haddr = p->vdso_start + hoff;
	p->vdso_di = (unw_dyn_info_t){
		.start_ip = p->vdso_start,
		.end_ip = p->vdso_end,
		.format = UNW_INFO_FORMAT_REMOTE_TABLE,
		/* datarel entries are relative to the header's start */
		.u.rti.segbase = haddr,
		.u.rti.table_data = haddr + 12,
		/* in words; an entry is two 32-bit values */
		.u.rti.table_len = (uint64_t)nfde * 8 / sizeof(unw_word_t),
	};

	/* Names: the vDSO keeps its section headers and a .dynsym. */
	if (eh->e_shentsize == sizeof(Elf64_Shdr) &&
	    in_img(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr),
		   size)) {
		const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh->e_shoff);
		for (int i = 0; i < eh->e_shnum; i++) {
			if (sh[i].sh_type != SHT_DYNSYM ||
			    sh[i].sh_link >= eh->e_shnum)
				continue;
			const Elf64_Shdr *st = &sh[sh[i].sh_link];
			if (!in_img(sh[i].sh_offset, sh[i].sh_size, size) ||
			    !in_img(st->sh_offset, st->sh_size, size))
				break;
			p->vdso_syms =
				(const Elf64_Sym *)(img + sh[i].sh_offset);
			p->vdso_nsyms = sh[i].sh_size / sizeof(Elf64_Sym);
			p->vdso_strs = (const char *)img + st->sh_offset;
			p->vdso_strsz = st->sh_size;
			break;
		}
	}
	p->vdso_img = img;
	p->vdso_ok = true;
	return;
bad:
	free(img);
}

static bool in_vdso(struct uw_arg *a, unw_word_t ip)
{
	struct uw_proc *p = a->p;
	if (!p->vdso_end || ip < p->vdso_start || ip >= p->vdso_end)
		return false;
	if (!p->vdso_tried)
		vdso_load(p, a->memfd);
	return p->vdso_ok;
}

static int vdso_name(struct uw_proc *p, unw_word_t ip, char *buf, size_t len,
		     unw_word_t *offp)
{
	for (size_t i = 0; i < p->vdso_nsyms; i++) {
		const Elf64_Sym *sy = &p->vdso_syms[i];
		if (ELF64_ST_TYPE(sy->st_info) != STT_FUNC || !sy->st_value ||
		    sy->st_name >= p->vdso_strsz)
			continue;
		uint64_t a = p->vdso_bias + sy->st_value;
		if (ip < a || ip - a >= (sy->st_size ? sy->st_size : 1))
			continue;
		const char *nm = p->vdso_strs + sy->st_name;
		size_t n = strnlen(nm, p->vdso_strsz - sy->st_name);
		if (n >= len)
			n = len - 1;
		memcpy(buf, nm, n);
		buf[n] = 0;
		if (offp)
			*offp = ip - a;
		return 0;
	}
	return -UNW_ENOINFO;
}

/* ------------------------------------------------------------------ */
/*
 * Accessors: _UPT_accessors plus the vDSO and, on x86-64, registers served
 * from one PTRACE_GETREGSET instead of one PTRACE_PEEKUSER each.
 */

static __thread struct uw_arg *uw_cur;

/* The current walk, if `arg` is its _UPT context. */
static struct uw_arg *cur(void *arg)
{
	return uw_cur && uw_cur->upt == arg ? uw_cur : NULL;
}

static int uw_find_proc_info(unw_addr_space_t as, unw_word_t ip,
			     unw_proc_info_t *pi, int need, void *arg)
{
	struct uw_arg *a = cur(arg);
	if (a && in_vdso(a, ip))
		return UNW_OBJ(dwarf_search_unwind_table)(
			as, ip, &a->p->vdso_di, pi, need, arg);
	return _UPT_find_proc_info(as, ip, pi, need, arg);
}

static void uw_put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi,
			       void *arg)
{
	_UPT_put_unwind_info(as, pi, arg);
}

static int uw_get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *dil,
				     void *arg)
{
	return _UPT_get_dyn_info_list_addr(as, dil, arg);
}

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * Count one read against the walk's budget: false (and a->cut set) when
 * the walk must stop. The clock is read every 64 reads only: a read is a
 * system call or a cache hit, well under a microsecond to a few.
 */
static bool budget_take(struct uw_arg *a, unsigned reads, uint64_t bytes)
{
	if (a->cut)
		return false;
	a->reads += reads;
	a->bytes += bytes;
	if ((a->max_reads && a->reads > a->max_reads) ||
	    (a->max_bytes && a->bytes > a->max_bytes)) {
		a->cut = "budget";
		return false;
	}
	if (a->deadline > 0 && reads && !(a->reads & 63) &&
	    mono_now() > a->deadline) {
		a->cut = "deadline";
		return false;
	}
	return true;
}

/* One word of the member's memory through /proc/TGID/mem, by pages. */
static int memfd_word(struct uw_arg *a, uint64_t addr, unw_word_t *val)
{
	uint64_t page = addr >> 12, off = addr & 4095;
	if (off + sizeof(*val) > 4096) { /* straddles two pages: as is */
		if (!budget_take(a, 0, sizeof(*val)))
			return -UNW_EINVAL;
		ssize_t n = pread(a->memfd, val, sizeof(*val), (off_t)addr);
		return n == (ssize_t)sizeof(*val) ? 0 : -UNW_EINVAL;
	}
	unsigned slot = (unsigned)(page * 0x9e3779b1u >> 7) % UW_CACHE_PAGES;
	if (a->cache[slot].page != page + 1) {
		if (!budget_take(a, 0, 4096))
			return -UNW_EINVAL;
		a->cache[slot].page = 0;
		if (pread(a->memfd, a->cache[slot].data, 4096,
			  (off_t)(page << 12)) != 4096)
			return -UNW_EINVAL;
		a->cache[slot].page = page + 1;
	}
	memcpy(val, a->cache[slot].data + off, sizeof(*val));
	return 0;
}

static int uw_access_mem(unw_addr_space_t as, unw_word_t addr,
			 unw_word_t *val, int write, void *arg)
{
	struct uw_arg *a = cur(arg);
	if (!a)
		return _UPT_access_mem(as, addr, val, write, arg);
	/*
	 * The budget counts libunwind's requests, cached or not: a looping
	 * DWARF expression re-reads the same few bytes for ever (issue 22),
	 * and only the count of requests sees it.
	 */
	if (!budget_take(a, 1, 0))
		return -UNW_EINVAL;
	if (write)
		return -UNW_EINVAL; /* an unwind never writes to the member */
	if (a->memfd < 0)
		return _UPT_access_mem(as, addr, val, write, arg);
	if ((int64_t)addr < 0) /* not a user address: pread would fail */
		return -UNW_EINVAL;
	return memfd_word(a, addr, val);
}

static int uw_access_reg(unw_addr_space_t as, unw_regnum_t reg,
			 unw_word_t *val, int write, void *arg)
{
#if defined(__x86_64__)
	struct uw_arg *a = cur(arg);
	if (a && !write) {
		const struct user_regs_struct *r = &a->regs;
		switch (reg) {
		case UNW_X86_64_RAX: *val = r->rax; return 0;
		case UNW_X86_64_RDX: *val = r->rdx; return 0;
		case UNW_X86_64_RCX: *val = r->rcx; return 0;
		case UNW_X86_64_RBX: *val = r->rbx; return 0;
		case UNW_X86_64_RSI: *val = r->rsi; return 0;
		case UNW_X86_64_RDI: *val = r->rdi; return 0;
		case UNW_X86_64_RBP: *val = r->rbp; return 0;
		case UNW_X86_64_RSP: *val = r->rsp; return 0;
		case UNW_X86_64_R8: *val = r->r8; return 0;
		case UNW_X86_64_R9: *val = r->r9; return 0;
		case UNW_X86_64_R10: *val = r->r10; return 0;
		case UNW_X86_64_R11: *val = r->r11; return 0;
		case UNW_X86_64_R12: *val = r->r12; return 0;
		case UNW_X86_64_R13: *val = r->r13; return 0;
		case UNW_X86_64_R14: *val = r->r14; return 0;
		case UNW_X86_64_R15: *val = r->r15; return 0;
		case UNW_X86_64_RIP: *val = r->rip; return 0;
		}
	}
#endif
	return _UPT_access_reg(as, reg, val, write, arg);
}

static int uw_access_fpreg(unw_addr_space_t as, unw_regnum_t reg,
			   unw_fpreg_t *val, int write, void *arg)
{
	return _UPT_access_fpreg(as, reg, val, write, arg);
}

static int uw_resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	/* We never resume through libunwind; the caller owns the stop. */
	return -UNW_EINVAL;
}

static int uw_get_proc_name(unw_addr_space_t as, unw_word_t ip, char *buf,
			    size_t len, unw_word_t *offp, void *arg)
{
	struct uw_arg *a = cur(arg);
	if (a && in_vdso(a, ip))
		return vdso_name(a->p, ip, buf, len, offp);
	return _UPT_get_proc_name(as, ip, buf, len, offp, arg);
}

static unw_accessors_t uw_accessors = {
	.find_proc_info = uw_find_proc_info,
	.put_unwind_info = uw_put_unwind_info,
	.get_dyn_info_list_addr = uw_get_dyn_info_list_addr,
	.access_mem = uw_access_mem,
	.access_reg = uw_access_reg,
	.access_fpreg = uw_access_fpreg,
	.resume = uw_resume,
	.get_proc_name = uw_get_proc_name,
};

/* ------------------------------------------------------------------ */
/* The thread */

#if defined(__x86_64__)
#define UW_REGS_IP(r) ((r).rip)
#elif defined(__aarch64__)
#define UW_REGS_IP(r) ((r).pc)
#elif defined(__i386__)
#define UW_REGS_IP(r) ((r).eip)
#endif

/*
 * Is tid a ptrace-stopped tracee of the calling thread? ptrace refuses any
 * request but a few with ESRCH otherwise (not traced by us, running, gone).
 * Also returns the registers: the ip, for a one-frame stack when libunwind
 * cannot start, and on x86-64 all that unw_init_remote reads.
 */
static int probe_stopped(pid_t tid, struct user_regs_struct *regs,
			 uint64_t *ip)
{
	struct iovec iov = {regs, sizeof(*regs)};
	if (syscall(SYS_ptrace, PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS,
		    &iov) < 0)
		return -errno;
#ifdef UW_REGS_IP
	*ip = UW_REGS_IP(*regs);
#else
	*ip = 0;
#endif
	return 0;
}

static bool thread_of(pid_t tgid, pid_t tid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)tgid, (int)tid);
	return access(path, F_OK) == 0;
}

/* Record (ip, sp); true if the pair was seen before in this walk. */
static bool seen_before(struct corral_unwinder *u, int n, uint64_t ip,
			uint64_t sp, bool *monotonic)
{
	uint64_t *s = u->seen;
	/*
	 * While sp has only grown frame after frame (the normal case: each
	 * caller's frame is above its callee's), a new, larger sp cannot
	 * repeat an earlier pair, and no search is needed. After a stack
	 * switch (signal on an alternate stack, a corrupt frame) search all.
	 */
	bool dup = false;
	if (n > 0 && !(*monotonic && sp > s[2 * (n - 1) + 1])) {
		*monotonic = false;
		for (int i = 0; i < n && !dup; i++)
			dup = s[2 * i] == ip && s[2 * i + 1] == sp;
	}
	s[2 * n] = ip;
	s[2 * n + 1] = sp;
	return dup;
}

static int seen_reserve(struct corral_unwinder *u, int max)
{
	if ((size_t)max <= u->capseen)
		return 0;
	uint64_t *ns = realloc(u->seen, 2 * (size_t)max * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	u->seen = ns;
	u->capseen = max;
	return 0;
}

static void graveyard_empty(struct corral_unwinder *u)
{
	while (u->graveyard) {
		struct uw_proc *p = u->graveyard;
		u->graveyard = p->next;
		proc_free(p);
	}
}

/*
 * The frames from an initialised cursor on, up to max: a step of its own
 * as the loop is where every way a walk ends is told (the outermost frame,
 * a loop, libunwind's error, the round's deadline or budget, max). Returns
 * how many frames were written; *reason is why it stopped (NULL: the
 * stack's real end), *failed that libunwind gave up on an error.
 */
static int walk_frames(struct corral_unwinder *u, struct uw_proc *p,
		       struct uw_arg *arg, unw_cursor_t *c,
		       struct corral_frame *frames, int max,
		       const char **reason, bool *failed)
{
	int n = 0, r;
	bool prev = false, monotonic = true;
	for (;;) {
		unw_word_t ip, sp;
		if (unw_get_reg(c, UNW_REG_IP, &ip) < 0 ||
		    unw_get_reg(c, UNW_REG_SP, &sp) < 0) {
			*reason = "unw_get_reg failed";
			*failed = true;
			break;
		}
		/* A zero return address is how some outermost frames end. */
		if (n > 0 && ip == 0)
			break;
		if (seen_before(u, n, ip, sp, &monotonic)) {
			*reason = "loop: same ip and sp twice";
			break;
		}
		struct corral_frame *f = &frames[n++];
		f->ip = ip;
		symbolize(u, p, c, ip, prev, f);

		/*
		 * After a signal frame the next ip is where the thread was
		 * interrupted, not a return address: look it up as is.
		 */
		prev = unw_is_signal_frame(c) <= 0;
		/* The round's deadline, per frame (the reads check it too). */
		if (arg->deadline > 0 && !arg->cut &&
		    mono_now() > arg->deadline)
			arg->cut = "deadline";
		if (arg->cut)
			break;
		r = unw_step(c);
		if (arg->cut) /* whatever libunwind made of the refusal */
			break;
		if (r == 0) {
			/*
			 * A real stack ends in _start or clone, in a file.
			 * Ending at code that is in no file (JIT, a wild
			 * jump) means libunwind found nothing to go on.
			 */
			if (!f->module)
				*reason = "no unwind info: ip outside any file "
					  "mapping";
			break;
		}
		if (r < 0) {
			*reason = uw_reason(r, false);
			*failed = true;
			break;
		}
		if (n == max) {
			*reason = "max frames";
			break;
		}
	}
	return n;
}

/*
 * The walk itself, from registers already taken: shared by the tracer's
 * own walk (unwinder_stack) and a walk made by another process
 * (unwinder_stack_regs, walker.c). *failed says libunwind gave up on an
 * error (the caller may want to know whether the thread died meanwhile).
 */
static int walk(struct corral_unwinder *u, pid_t tgid, pid_t tid,
		struct uw_arg *arg, uint64_t ip0, struct corral_frame *frames,
		int max, const char **why, bool *failed)
{
	const char *reason = NULL;
	*failed = false;
	if (max == 0) {
		*why = "max frames";
		return 0;
	}
	struct uw_proc *p;
	int err = seen_reserve(u, max);
	if (!err)
		err = proc_get(u, tgid, &p);
	if (err < 0)
		return err;

	/* The accessors need the vDSO's place, the names need the maps. */
	if (!p->maps_loaded)
		maps_read(u, p);

	/* The _UPT context holds the tid that PTRACE_PEEK* calls address. */
	arg->upt = _UPT_create(tid);
	if (!arg->upt)
		return -ENOMEM;
	arg->p = p;
	uw_cur = arg;

	unw_cursor_t c;
	int n = 0;
	int r = unw_init_remote(&c, p->as, arg->upt);
	if (r < 0) {
		/*
		 * Still worth one frame: the ip is known from the registers and
		 * says where the thread is, if not how it got there.
		 */
		reason = uw_reason(r, true);
		*failed = true;
		if (ip0) {
			frames[0] = (struct corral_frame){.ip = ip0};
			frames[0].module = module_of(u, p, ip0);
			n = 1;
		}
	} else {
		n = walk_frames(u, p, arg, &c, frames, max, &reason, failed);
	}

	uw_cur = NULL;
	_UPT_destroy(arg->upt);
	if (arg->cut) {
		reason = !strcmp(arg->cut, "budget")
				 ? "budget: too many reads of member memory"
				 : "deadline: the walk took too long";
		*failed = false;
	}
	u->st.stacks++;
	u->st.frames += n;
	u->st.reads += arg->reads;
	*why = reason;
	return n;
}

static void limits_apply(struct uw_arg *a, const struct unwinder_limits *lim)
{
	a->memfd = lim ? lim->memfd : -1;
	a->max_reads = lim && lim->max_reads ? lim->max_reads
					     : UNWINDER_MAX_READS;
	a->max_bytes = lim && lim->max_bytes ? lim->max_bytes
					     : UNWINDER_MAX_BYTES;
	a->deadline = lim ? lim->deadline : 0;
}

int unwinder_stack(struct corral_unwinder *u, pid_t tgid, pid_t tid,
		   struct corral_frame *frames, int max, const char **why)
{
	const char *reason = NULL;
	if (why)
		*why = NULL;
	if (!u || !frames || max < 0 || tid <= 0 || tgid <= 0)
		return -EINVAL;

	/* Strings from the previous call may go now. */
	graveyard_empty(u);
	u->call++;

	/*
	 * The pairing matters: the maps, the address space and the caches are
	 * those of tgid, and a tid from another process would be named with
	 * them. One stat, cheap next to the unwind.
	 */
	if (!thread_of(tgid, tid))
		return -ESRCH;
	struct uw_arg *arg = calloc(1, sizeof(*arg));
	if (!arg)
		return -ENOMEM;
	struct user_regs_struct *regs;
#if defined(__x86_64__)
	regs = &arg->regs;
#else
	struct user_regs_struct regs_buf;
	regs = &regs_buf;
#endif
	uint64_t ip0 = 0;
	int err = probe_stopped(tid, regs, &ip0);
	if (err < 0) {
		free(arg);
		return err;
	}
	limits_apply(arg, NULL);
	bool failed;
	int n = walk(u, tgid, tid, arg, ip0, frames, max, &reason, &failed);
	/*
	 * A failure may be the thread dying under us (SIGKILL from elsewhere
	 * ends even a ptrace-stopped thread): then what we read is not a
	 * stack, and the caller wants to know the thread is gone.
	 */
	if (n >= 0 && failed && probe_stopped(tid, regs, &ip0) == -ESRCH)
		n = -ESRCH;
	free(arg);
	if (n >= 0 && why)
		*why = reason;
	return n;
}

int unwinder_stack_regs(struct corral_unwinder *u, pid_t tgid, pid_t tid,
			const struct user_regs_struct *regs,
			const struct unwinder_limits *lim,
			struct corral_frame *frames, int max, const char **why,
			const char **cut, bool *failed)
{
	*why = NULL;
	*cut = NULL;
	*failed = false;
	if (!u || !frames || !regs || max < 0 || tid <= 0 || tgid <= 0)
		return -EINVAL;
	graveyard_empty(u);
	u->call++;
	struct uw_arg *arg = calloc(1, sizeof(*arg));
	if (!arg)
		return -ENOMEM;
	uint64_t ip0 = 0;
#if defined(__x86_64__)
	arg->regs = *regs;
#endif
#ifdef UW_REGS_IP
	ip0 = UW_REGS_IP(*regs);
#endif
	limits_apply(arg, lim);
	int n = walk(u, tgid, tid, arg, ip0, frames, max, why, failed);
	*cut = arg->cut;
	if (n >= 0 && !*cut && *why && !strcmp(*why, "max frames"))
		*cut = "frames";
	free(arg);
	return n;
}

/* ------------------------------------------------------------------ */

int unwinder_new(struct corral_unwinder **out)
{
	struct corral_unwinder *u = calloc(1, sizeof(*u));
	*out = u;
	return u ? 0 : -ENOMEM;
}

void unwinder_forget(struct corral_unwinder *u, pid_t tgid)
{
	if (!u)
		return;
	struct uw_proc **pp = &u->bucket[bucket_of(tgid)];
	for (; *pp; pp = &(*pp)->next) {
		if ((*pp)->tgid != tgid)
			continue;
		struct uw_proc *p = *pp;
		*pp = p->next;
		/* Frames from the last call may still point into p. */
		p->next = u->graveyard;
		u->graveyard = p;
		return;
	}
}

void unwinder_free(struct corral_unwinder *u)
{
	if (!u)
		return;
	for (int b = 0; b < UW_BUCKETS; b++) {
		while (u->bucket[b]) {
			struct uw_proc *p = u->bucket[b];
			u->bucket[b] = p->next;
			proc_free(p);
		}
	}
	graveyard_empty(u);
	free(u->seen);
	free(u);
}

void unwinder_get_stats(const struct corral_unwinder *u,
			struct unwinder_stats *st)
{
	*st = u->st;
}
