/*
 * tree.c - the process tree from a journal, printed exactly as
 * `corral run --tree` prints it live (cli/corral.c), so the two can be
 * compared line for line.
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

static void cmd(FILE *f, const struct corral_report *m, int i)
{
	/* "(fork) " for each generation without an exec, as live */
	const struct rexec *x = rpt_exec_of(m, i);
	if (!x) {
		fputs("?", f);
		return;
	}
	for (int k = 0; k < m->procs[i].forks && k < 8; k++)
		fputs("(fork) ", f);
	if (x->argc)
		out_argv_text(f, x->argv, x->argv_len);
	else if (x->path)
		out_text(f, x->path, strlen(x->path));
	else
		fputs("?", f);
}

struct item {
	int proc, depth;
	bool last;
};

/*
 * Depth-first without recursion: a fork chain of a million processes is a
 * legal journal and must not overflow the stack.
 */
int corral_report_tree(const struct corral_report *m, FILE *f)
{
	fprintf(f, "corral: %zu processes, %zu threads, %lu execs, ", m->nprocs,
		m->nthreads, m->n_execs);
	if (m->has_end)
		fprintf(f, "exit %d (%s)\n", m->exit_code,
			m->end_reason ? m->end_reason : "?");
	else
		fprintf(f, "no end line\n");
	size_t cap = m->nprocs + 1, n = 0, pcap = 4096;
	struct item *st = malloc(cap * sizeof(*st));
	char *pre = malloc(pcap);
	if (!st || !pre) {
		free(st);
		free(pre);
		return -12;
	}
	for (size_t r = m->nprocs; r-- > 0;)
		if (m->procs[r].parent < 0)
			st[n++] = (struct item){(int)r, 0, true};
	while (n) {
		struct item it = st[--n];
		const struct rproc *p = &m->procs[it.proc];
		size_t plen = it.depth > 1 ? 3 * (size_t)(it.depth - 1) : 0;
		char how[64];
		rpt_proc_end_text(m, it.proc, how, sizeof(how));
		double life = (p->has_exit ? p->ended : p->born) - p->born;
		fwrite(pre, 1, plen, f);
		fprintf(f, "%s%d %s", it.depth ? (it.last ? "`- " : "|- ") : "",
			p->pid, p->setup ? "(setup) " : "");
		cmd(f, m, it.proc);
		fprintf(f, " [%s, %.3fs]\n", how, life);
		if (it.depth) {
			if (plen + 3 > pcap) {
				char *q = realloc(pre, pcap * 2);
				if (!q)
					break;
				pre = q;
				pcap *= 2;
			}
			memcpy(pre + plen, it.last ? "   " : "|  ", 3);
		}
		/* children pushed in reverse so the first is printed first */
		size_t base = n;
		for (int c = p->first_child; c >= 0;
		     c = m->procs[c].next_sibling) {
			if (n == cap)
				break; /* cannot happen: each proc once */
			st[n++] = (struct item){c, it.depth + 1,
						m->procs[c].next_sibling < 0};
		}
		for (size_t a = base, b = n; b > a + 1; a++, b--) {
			struct item t = st[a];
			st[a] = st[b - 1];
			st[b - 1] = t;
		}
	}
	free(st);
	free(pre);
	return ferror(f) ? -5 : 0;
}
