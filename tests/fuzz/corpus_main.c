/* A plain driver for the libFuzzer harnesses: runs every file of the
 * directories (or files) it is given through LLVMFuzzerTestOneInput once,
 * in name order, so the committed corpora, the bad-input corpus and the
 * seeds are replayed by the ordinary build (and the sanitizer build's unit
 * tier) without libFuzzer or clang.
 *   corpus/fuzz_NAME DIR|FILE...
 * Prints "fuzz-corpus NAME: N passed, 0 failed" (N inputs run); a harness's
 * trap or a sanitizer report ends the process, and the input that caused
 * it is named on stderr first. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

static const char *current;

static void name_current(void)
{
	if (current)
		fprintf(stderr, "fuzz-corpus: the input that failed: %s\n", current);
}

static void on_abort(int sig)
{
	name_current();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Returns 0, or -errno when the file cannot be read. */
static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	uint8_t *buf;

	if (!f)
		return -errno;
	if (fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode)) {
		fclose(f);
		return -EINVAL;
	}
	/* exactly the input's size, so a read past it is a sanitizer report */
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf || fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		free(buf);
		fclose(f);
		return -EIO;
	}
	fclose(f);
	current = path;
	LLVMFuzzerTestOneInput(buf, (size_t)st.st_size);
	current = NULL;
	free(buf);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	unsigned long ran = 0, bad = 0;

	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(name_current);
	signal(SIGABRT, on_abort);
	signal(SIGSEGV, on_abort);
	signal(SIGTRAP, on_abort);
	signal(SIGILL, on_abort);
	for (int i = 1; i < argc; i++) {
		struct dirent **ents;
		int n = scandir(argv[i], &ents, NULL, by_name);

		if (n < 0) {
			if (run_file(argv[i]) < 0) {
				fprintf(stderr, "fuzz-corpus %s: %s: %s\n", name, argv[i], strerror(errno));
				bad++;
			} else {
				ran++;
			}
			continue;
		}
		for (int k = 0; k < n; k++) {
			char path[4096];

			if (ents[k]->d_name[0] != '.') {
				snprintf(path, sizeof(path), "%s/%s", argv[i], ents[k]->d_name);
				if (run_file(path) == 0)
					ran++;
			}
			free(ents[k]);
		}
		free(ents);
	}
	printf("fuzz-corpus %s: %lu passed, %lu failed\n", name, ran, bad);
	return bad ? 1 : 0;
}
