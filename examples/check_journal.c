/*
 * check_journal.c - check a corral journal's digest chain and summarise the
 * run it records, without supervising anything.
 *
 *	check_journal JOURNAL
 *
 * Prints the chain's verdict ("intact", or the first problem), then the
 * report's summary as text. Exits 0 when the journal is intact, 1 when it
 * is not, 2 when it cannot be read as a journal.
 *
 * It uses only <corral/journal.h> and <corral/report.h>, and links
 * libcorral-journal, which needs neither libseccomp nor libunwind:
 *
 * Build: cc check_journal.c $(pkg-config --cflags --libs corral-journal) -o
 *check_journal
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <corral/journal.h>
#include <corral/report.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: check_journal JOURNAL\n");
		return 2;
	}
	char err[256] = "";
	int fd = corral_open_file(argv[1], CORRAL_OPEN_READ, err, sizeof(err));
	if (fd < 0) {
		fprintf(stderr, "check_journal:%s\n", err);
		return 2;
	}

	struct corral_journal_check chk;
	corral_journal_check_init(&chk);
	int r = corral_journal_check_fd(fd, &chk);
	if (r < 0) {
		fprintf(stderr, "check_journal: %s: %s\n", argv[1],
			*chk.why ? chk.why : strerror(-r));
		close(fd);
		return 2;
	}
	if (chk.intact)
		printf("intact: %zu lines, %zu run(s), head %s\n", chk.lines,
		       chk.runs, chk.last_h);
	else
		printf("NOT intact: line %zu: %s (%s)\n", chk.first_bad,
		       corral_line_verdict_name(chk.first_verdict), chk.why);

	/* The report reads the file again from its start. */
	struct corral_report *rep;
	if (lseek(fd, 0, SEEK_SET) < 0)
		snprintf(err, sizeof(err), "%s", strerror(errno));
	else if (corral_report_load(fd, argv[1], &rep, err, sizeof(err)) == 0)
		err[0] = '\0';
	if (err[0]) {
		fprintf(stderr, "check_journal: %s: %s\n", argv[1], err);
		close(fd);
		return 2;
	}
	close(fd);
	corral_report_summary(rep, stdout, CORRAL_REPORT_TEXT);
	corral_report_free(rep);
	return chk.intact ? 0 : 1;
}
