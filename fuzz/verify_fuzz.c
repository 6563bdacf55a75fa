/*
 * verify_fuzz.c - libFuzzer target for the journal reader behind
 * `corral verify` (journal_verify_core(), behind corral_journal_verify(),
 * tracer/journal/chain.c): any bytes must
 * give a verdict or -EINVAL, never a crash, a hang or an out-of-bounds
 * read. `make fuzz` builds it with clang and runs it for FUZZ_SECONDS,
 * starting from a real journal (fuzz/README).
 *
 * The first input byte picks the mode: with or without a key (the fixed
 * key below), with or without --head, with a per-line callback that reads
 * every byte it is given.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "corral.h"
#include "journal.h"

static size_t sum;

static void each(const struct corral_journal_line *l, void *arg)
{
	/* Touch every byte the callback is handed: ASan checks the bounds. */
	for (size_t i = 0; i < l->len; i++)
		sum += (unsigned char)l->text[i];
	sum += (size_t)l->verdict + l->lineno;
	(void)corral_line_verdict_name(l->verdict);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned char key[] = "fuzzing key, 32 bytes long......";
	struct corral_journal_check c = {0};
	unsigned mode = size ? data[0] : 0;
	if (size) {
		data++;
		size--;
	}
	if (mode & 1) {
		c.key = key;
		c.keylen = sizeof(key) - 1;
	}
	if (mode & 2)
		c.head = "0000000000000000000000000000000000000000000000000000000000000000";
	if (mode & 4)
		c.on_line = each;
	c.size = sizeof(c);
	int r = journal_verify_core((const char *)data, size, &c);
	if (r == 0 && c.intact && !c.lines)
		__builtin_trap(); /* intact needs lines */
	if (strlen(c.why) >= sizeof(c.why) || strlen(c.last_h) > 64)
		__builtin_trap();
	return 0;
}
